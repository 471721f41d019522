"""The harness lab: real harness binaries against a scripted model (docs/harness-integration.md,
"The harness lab")."""
