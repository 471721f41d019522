"""The built-in rules, each a plugin registered exactly like a team's own."""
