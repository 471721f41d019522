"""What each program takes and does: one row per program, read by one interpreter
(guards/shell/programs.py), as ShellCheck keeps its knowledge of commands in one table.

A row is a `Spec` (guards/shell/row.py) of typed fields; the few irregular programs name
their hand-written reader (guards/shell/handlers.py, guards/shell/git.py) in their row.
A program without a row is unknown (`ShellLine.unknown`).
"""

from __future__ import annotations

from automaton_rules.guards.shell import git, handlers
from automaton_rules.guards.shell.row import Files, Runs, Spec, rows
from automaton_rules.guards.shell.words import names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell.row import Modes


def formatter(writes: str = "", checks: str = "", values: str = "", dash: bool = False) -> Spec:
    """A formatter: writes its operands or folder (given `writes` flags), reads with `checks`."""
    modes: Modes = ((checks, READ),) if checks else ()
    if not writes:
        return Spec(values, writes=Files.ALL_OR_HERE, modes=modes, dash=dash)
    return Spec(
        values, modes=(*modes, (writes, Spec(values, Files.ALL_OR_HERE, dash=dash))), dash=dash
    )


def manager(
    manifest: str,
    changes: str,
    always: str = "",
    runs: str = "",
    execs: str = "",
    tree: str = "",
    more: dict[str, Spec] | None = None,
    modes: Modes = (),
) -> Spec:
    """A package manager: `changes` write its manifest given a package (not with `-g`),
    `always` write it anyway, `runs` and `execs` run a command (`execs` also `-c
    STRING`), `tree` rewrite the sources, `more` are its other sub-commands."""
    write = Spec(writes=Files.path(manifest), modes=((GLOBAL, READ),))
    change = Spec(writes=Files.path(manifest), least=1, modes=((GLOBAL, READ), ("--bump", write)))
    subs = {changes: change, always: write, runs: RUNNER, execs: NPX, tree: TREE, **(more or {})}
    subs = {k: v for k, v in subs.items() if k}
    return Spec(MANAGED, subs=subs, modes=modes, foreign=FOREIGN, program="--script-shell")


def script_editor(values: str) -> Spec:
    """perl, ruby: code after `-e`, else a script; `-i[SUFFIX]` rewrites the files."""
    runs, code = Runs.SCRIPT | Runs.STDIN, "-e -E"
    editor = Spec(values, Files.SCRIPT_FILES, runs, code, optional="i", repeat=True)
    return Spec(values, (), runs, code, (("-i", editor),), optional="i", repeat=True)


READ = Spec()  # reads, or runs what the project is made of
GLOBAL = "-g --global --location=global"
MANAGED = "-C --prefix --cwd --directory --manifest-path"
FOREIGN = f"{MANAGED} --userconfig --globalconfig"  # a package or settings from elsewhere
RUNS = (  # a runner's options that take a value, before the command it runs
    "-p -n -w -e --with --with-editable --with-requirements --python --project --directory "
    "--package --extra --group --env-file --index --from --name --prefix --cwd --spec "
    "--environment --manifest-path --workspace --filter --config"
)
RUNNER = Spec(f"{RUNS} -c --call", runs=Runs.COMMAND)
NPX = Spec(RUNS, code="-c --call", runs=Runs.COMMAND | Runs.SHELL)  # `npx -c STRING`
WHOLE = Spec(writes=Files.HERE)  # the whole folder it runs in
TREE = Spec(writes=Files.HERE, modes=(("--check -check -n", READ),))
TRACE = "-e -O -p -P -s -S -u -I -X -b -E"  # strace's and ltrace's options that take a value
SUDO = "-C -g -h -p -r -R -t -T -U -u --group --host --prompt --role --type --user"
REPORTED = (  # test and check tools write reports and caches where an option says
    Files.option("--basetemp", removes=True),
    "--junitxml --junit-xml --junit-prefix --html --report-log --result-log --cache-dir "
    "--html-report --xml-report --txt-report --linecount-report",
    Files.option("--cov-report", kind=True),
    "--linecoverage-report --lineprecision-report --cobertura-xml-report --any-exprs-report "
    "--data-file",
)
REPORTS = Spec(writes=REPORTED, foreign="--config-file --rcfile")  # a config names plugins


def _ini(key: str) -> tuple[Files, ...]:
    """`pytest -o KEY=VALUE`: VALUE, for one setting."""
    return tuple(Files.option(name, prefix=key) for name in ("-o", "--override-ini"))


PYTEST = Spec(  # the files it is given are code it runs; `-p NAME` loads an installed module
    "-k -m -p -n -W --tb --maxfail --deselect --ignore --ignore-glob --rootdir --durations",
    writes=(*REPORTED, "--debug --log-file", *_ini("cache_dir=")),
    foreign=(Files.ALL, "-c --config-file", *_ini("pythonpath=")),
)
PYTHON = Spec(
    "-W -X --check-hash-based-pycs",
    code="-c",
    module="-m",
    runs=Runs.SCRIPT | Runs.STDIN,
    modes=(("--version --help -V -h", READ),),
)
RUFF = "--config --select --ignore --extend-select --target-version --line-length --exclude "
RUFF += "--extend-exclude --output-format -o --output-file --stdin-filename"
COPY = "-t -S --target-directory --suffix --backup"
CURL = (
    "-A -b -C -d -e -E -F -H -K -m -Q -r -t -T -u -U -w -x -X -y -Y -z -P --data "
    "--data-binary --data-raw --data-urlencode --header --user-agent --request --url --config "
    "--form --user --proxy --max-time --connect-timeout --retry --cookie --referer --range "
    "--upload-file --write-out --cacert --cert --key --resolve --limit-rate --retry-delay "
    "--retry-max-time --json"
)
HOOKED = "install uninstall init add"  # a hook manager's sub-commands that reroute the hooks
STASH_READS = "list show"  # the rest change the tree or the stash's refs
# git's sub-commands that only read; any other the table does not name is unknown (an
# alias, or a `git-NAME` program found on PATH).
GIT_READS = (
    "status diff log show blame annotate grep ls-files ls-tree ls-remote rev-parse describe "
    "shortlog cat-file rev-list whatchanged show-ref for-each-ref show-branch merge-base "
    "name-rev count-objects fsck verify-pack verify-commit verify-tag check-ignore check-attr "
    "check-mailmap check-ref-format var cherry range-diff diff-tree diff-files diff-index "
    "patch-id stripspace interpret-trailers column help version"
)
# Listing branches and tags reads; making, moving, copying or deleting one writes the refs.
BRANCH_VALUES = (
    "--contains --no-contains --merged --no-merged --points-at --sort --format --color "
    "--column -u --set-upstream-to"
)
BRANCH_WRITES = (
    "-d -D --delete -m -M --move -c -C --copy -u --set-upstream-to --unset-upstream "
    "--edit-description"
)
TAG_VALUES = f"{BRANCH_VALUES} -m -F --message --file --local-user --cleanup"
GIT = {  # git's sub-commands; `Files.HERE` for one that writes the repository (refs, the index,
    # the reflog, objects, worktrees): like the work tree, a write of the folder it runs in
    GIT_READS: READ,
    "add": Spec("--pathspec-from-file --chmod", writes=Files.HERE, modes=(("-n --dry-run", READ),)),
    "commit": Spec(writes=Files.HERE, modes=(("--dry-run", READ),)),
    "branch": Spec(
        BRANCH_VALUES,
        writes=Files.HERE,
        least=1,
        modes=((BRANCH_WRITES, WHOLE), ("-l --list --show-current", READ)),
    ),
    "tag": Spec(
        TAG_VALUES,
        writes=Files.HERE,
        least=1,
        modes=(("-d --delete", WHOLE), ("-l --list -v --verify", READ)),
    ),
    "reflog": Spec(subs={"expire delete drop": WHOLE}),
    "remote": Spec(subs={"add remove rm rename set-url set-head set-branches prune update": WHOLE}),
    "gc prune repack pack-refs prune-packed maintenance multi-pack-index commit-graph": WHOLE,
    "rerere": WHOLE,
    "config": Spec("-f --file --blob --type --default --comment --value", reader=git.config),
    "checkout": Spec("-b -B --orphan --conflict --pathspec-from-file", reader=git.checkout),
    "switch": WHOLE,
    "restore": Spec(
        "-s --source --pathspec-from-file",
        writes=Files.ALL,
        modes=(("-S --staged", WHOLE), ("-W --worktree", Spec("-s --source", writes=Files.ALL))),
    ),
    "reset": WHOLE,
    "stash": Spec(
        subs={
            STASH_READS: READ,
            "push": Spec("-m --message", (Files.ALL_OR_HERE, Files.HERE)),
            "*": WHOLE,
        }
    ),
    "clean": Spec(
        "-e --exclude",
        writes=Files.operands(default=".", removes=True),
        modes=(("-n --dry-run", READ),),
    ),
    "apply": Spec("-p -C --directory --exclude --include --build-fake-ancestor", reader=git.apply),
    "mv": Spec(COPY, reader=handlers.copy),
    "rm": Spec(
        "--pathspec-from-file",
        writes=(Files.operands(removes=True), Files.HERE),
        modes=(("-n --dry-run", READ), ("--cached", WHOLE)),
    ),
    "clone": Spec(
        "-b -o -c -j --branch --origin --config --depth --template --reference "
        "--separate-git-dir --filter --jobs",
        program="-u --upload-pack",
        reader=git.clone,
    ),
    "worktree": Spec(
        subs={
            "add": Spec("-b -B --reason", (Files.operand(1), Files.HERE)),
            "remove prune": Spec(writes=(Files.operands(removes=True), Files.HERE)),
            "move": Spec(writes=(Files.ALL, Files.HERE)),
            "lock unlock repair": WHOLE,
        }
    ),
    "init": Spec("-b --template --separate-git-dir --initial-branch", reader=git.init),
    "am merge cherry-pick revert bisect submodule checkout-index read-tree": WHOLE,
    # Plumbing that writes the repository without the hooks a commit runs: a write of it.
    "commit-tree update-ref mktree mktag write-tree update-index fast-import unpack-objects": WHOLE,
    "symbolic-ref": Spec("-m", writes=Files.HERE, least=2),
    "replace": Spec(writes=Files.HERE, least=1),
    "hash-object": Spec(modes=(("-w", WHOLE),)),
    "notes": Spec(subs={"add append copy edit merge remove prune": WHOLE}),
    "merge-file": Spec("-L", writes=Files.operand(1), modes=(("-p --stdout", READ),)),
    "bundle": Spec(subs={"create": Spec(writes=Files.operand(1)), "unbundle": WHOLE}),
    "sparse-checkout": Spec(subs={"set add reapply init disable": WHOLE}),
    "diff log show format-patch archive": Spec(writes="-o --output --output-directory"),
    # Options naming a program git runs.
    "pull": Spec(writes=Files.HERE, program="--upload-pack"),
    "rebase": Spec(writes=Files.HERE, program="-x --exec"),
    "fetch": Spec(writes=Files.HERE, program="--upload-pack --exec", modes=(("--dry-run", READ),)),
    "ls-remote": Spec(program="--upload-pack --exec"),
    "push": Spec(
        writes=Files.HERE, program="--receive-pack --exec", modes=(("-n --dry-run", READ),)
    ),
    "grep": Spec(program="-O --open-files-in-pager", optional="O"),  # `-O[PAGER]`
    "difftool": Spec(program="-x --extcmd"),
    "filter-branch": Spec(
        writes=Files.HERE,
        program="--setup --env-filter --tree-filter --index-filter --parent-filter "
        "--msg-filter --commit-filter --tag-name-filter",
    ),
}
SHELL = "-o +o -O +O --rcfile --init-file"
SHELL_MODES: Modes = (
    ("-c", Spec(SHELL, runs=Runs.CODE | Runs.SHELL)),
    ("-s", Spec(SHELL, runs=Runs.STDIN | Runs.SHELL)),
)
WATCH = "-n --interval --differences"
NPM, PY = "package.json", "pyproject.toml"
CLIPPY = Spec(modes=(("--fix", WHOLE),))
GO_SUM = Spec(writes=Files.path("go.mod"))
GO_MOD = Spec(subs={"tidy edit": GO_SUM, "": GO_SUM})
GO_RUNS = "-exec -toolexec -vettool"  # programs that run the built binaries or the tools
GO_FROM = "-modfile -overlay"  # sources and modules replaced from elsewhere
GO_BUILDS = {
    "test vet build install": Spec(dash=True, program=GO_RUNS, foreign=GO_FROM),
    "run": Spec(dash=True, program=GO_RUNS, foreign=GO_FROM, runs=Runs.SCRIPT),
}
YQ, YQ_RUN = "-o -p -I --output-format --input-format --indent", "e eval ea eval-all"
YQ_EDIT = Spec(YQ, writes=Files.ALL_BUT_FIRST)  # `yq -i [eval] EXPR FILE...` rewrites the files
NODE = Spec("-r", code="-e --eval -p --print", runs=Runs.SCRIPT | Runs.STDIN)
TOOLS = {"*": Spec(MANAGED, runs=Runs.COMMAND)}  # `yarn prettier --write .` runs prettier
MODULES = rows(  # what `python -m MODULE` runs, beside the programs of the same name
    {
        "json.tool": Spec(writes=Files.operand(2)),  # `json.tool IN OUT`; with one file it prints
        "tarfile zipfile": Spec(
            modes=(("-e --extract", Spec(writes=Files.operand(2, default="."))),)
        ),  # `-e ARCHIVE DIR`
    }
)

TABLE: dict[str, Spec] = rows(
    {
        # Programs that read, or only run the project's own code and checks.
        "cat head tail ls ll dir wc grep egrep fgrep ag pwd which type whereis file "
        "stat du df diff cmp comm cut paste join tr nl column fold fmt rev tac less more jq "
        "realpath readlink basename dirname date whoami id groups uname hostname true false "
        "test [ sleep md5sum sha1sum sha224sum sha256sum sha512sum b2sum cksum od hexdump "
        "strings nproc free ps pgrep uptime seq printenv locale tty base64 base32 expr bc "
        "wait read set shopt unset export local declare readonly return exit shift getopts "
        "hash ulimit umask jobs kill cd pushd popd : ssh-agent pip pip3 flake8 pyright pyflakes "
        "pydocstyle bandit vulture tsc": READ,
        "rg": Spec(program="--pre --hostname-bin"),  # `rg --pre CMD` runs CMD on each file
        "ack": Spec(program="--pager"),
        "pylint": Spec(code="--init-hook", foreign="--rcfile"),
        "pytest py.test": PYTEST,
        "mocha": Spec("-g --grep -t --timeout -R --reporter", foreign=(Files.ALL, "-r --require")),
        "jest vitest": Spec(foreign="-c --config --rootDir --root --dir"),
        "tox": Spec(foreign="-c --conf --root"),
        "nox": Spec(foreign="-f --noxfile"),
        "mypy dmypy": REPORTS,
        "coverage": Spec(
            subs={"run": Spec(writes=REPORTED, module="-m", runs=Runs.SCRIPT), "*": REPORTS}
        ),
        "echo printf": Spec(names=True),
        # Wrappers: they run the command after their own options.
        "builtin nohup setsid unbuffer valgrind torsocks noglob nocorrect then": Spec(
            runs=Runs.COMMAND
        ),
        "exec": Spec("-a", runs=Runs.COMMAND),
        "time": Spec("-f --format", writes="-o --output", runs=Runs.COMMAND),
        "nice": Spec("-n --adjustment", runs=Runs.COMMAND),
        "ionice": Spec("-c -n -p --class --classdata --pid", runs=Runs.COMMAND),
        "stdbuf": Spec("-i -o -e --input --output --error", runs=Runs.COMMAND),
        "timeout": Spec("-s -k --signal --kill-after", runs=Runs.COMMAND_AFTER_FIRST),
        "doas": Spec("-u -C", runs=Runs.COMMAND),
        "caffeinate": Spec("-t -w", runs=Runs.COMMAND),
        "chrt taskset": Spec(runs=Runs.COMMAND_AFTER_FIRST),
        "strace": Spec(f"{TRACE} --trace", writes="-o --output", runs=Runs.COMMAND),
        "ltrace": Spec(f"{TRACE} -n", writes="-o --output", runs=Runs.COMMAND),
        "xvfb-run": Spec(
            "-n -s -f -e -l -p --server-num --server-args --auth-file", runs=Runs.COMMAND
        ),
        "proxychains proxychains4": Spec("-f", runs=Runs.COMMAND),
        "command": Spec(runs=Runs.COMMAND, modes=(("-v -V", READ),)),
        "sudo": Spec(
            SUDO, runs=Runs.COMMAND, chdir="-D --chdir", modes=(("-e --edit", Spec(SUDO, "*")),)
        ),
        "sudoedit": Spec(SUDO, writes=Files.ALL),
        "su runuser": Spec(code="-c --command", runs=Runs.SHELL),
        "script": Spec(
            "-I -O -B -T -E -o -m --log-in --log-out --log-io --log-timing --echo --output-limit",
            writes=Files.operand(1, default="typescript"),
            code="-c --command",
            runs=Runs.SHELL | Runs.STDIN,
        ),
        "make gmake": Spec(
            "-I -o -j -l -W --include-dir",
            foreign="-f --file --makefile -C --directory",
            chdir="-C --directory",
        ),
        "source .": Spec(runs=Runs.SCRIPT | Runs.SHELL),
        "trap": Spec(runs=Runs.CODE | Runs.SHELL, least=2),
        "env": Spec(
            "-u -S --unset --split-string",
            runs=Runs.COMMAND,
            chdir="-C --chdir",
            reader=handlers.env,
        ),
        "eval": Spec(runs=Runs.JOINED | Runs.SHELL),
        "watch": Spec(
            WATCH,
            runs=Runs.JOINED | Runs.SHELL,
            modes=(("-x --exec", Spec(WATCH, runs=Runs.COMMAND)),),
        ),
        "alias": Spec(reader=handlers.alias),
        "xargs": Spec(
            "-a -d -E -e -I -L -l -n -P -s --arg-file --delimiter --eof --max-lines --max-args "
            "--max-procs --max-chars --process-slot-var --replace",
            runs=Runs.COMMAND,
            reader=handlers.xargs,
        ),
        "parallel": Spec("-j -S -a --jobs --arg-file", runs=Runs.COMMAND, reader=handlers.parallel),
        "flock": Spec(
            "-w -E --wait --timeout --conflict-exit-code",
            runs=Runs.COMMAND_AFTER_FIRST,
            reader=handlers.flock,
        ),
        "find": Spec(reader=handlers.find),
        "fd fdfind": Spec(reader=handlers.fd),
        # Interpreters: code after an option, a script, or standard input.
        "python pypy py": PYTHON,
        "sh bash zsh dash ksh mksh ash fish": Spec(  # `-i`, `-l`: start-up files run
            SHELL,
            runs=Runs.SCRIPT | Runs.STDIN | Runs.SHELL,
            modes=SHELL_MODES,
            startup="-i -l --login --interactive",
            foreign="--rcfile --init-file",
        ),
        "busybox": Spec(SHELL, runs=Runs.COMMAND | Runs.STDIN | Runs.SHELL, modes=SHELL_MODES),
        "node nodejs": NODE,
        "deno": Spec(
            subs={
                "eval": Spec(runs=Runs.CODE),
                "run *": Spec("-c --config", runs=Runs.SCRIPT),  # `deno FILE` is `deno run FILE`
                "fmt": formatter(checks="--check"),
            }
        ),
        "php": Spec("-d -c -z", code="-r", runs=Runs.SCRIPT | Runs.STDIN),
        "lua luajit": Spec("-l", code="-e", runs=Runs.SCRIPT | Runs.STDIN),
        "Rscript": Spec(code="-e", runs=Runs.SCRIPT | Runs.STDIN),
        "julia": Spec(code="-e --eval -E --print", runs=Runs.SCRIPT | Runs.STDIN),
        "osascript": Spec("-l", code="-e", runs=Runs.SCRIPT | Runs.STDIN),
        "pwsh powershell": Spec(
            code="-c -Command -command", runs=Runs.SCRIPT | Runs.STDIN, dash=True
        ),
        "tclsh wish": Spec(runs=Runs.SCRIPT | Runs.STDIN),
        "expect": Spec(
            "-b -f -D", code="-c", runs=Runs.SCRIPT | Runs.STDIN
        ),  # Tcl: `spawn` runs anything
        "perl": script_editor("-I -M -m -F -C -x"),
        "ruby": script_editor("-I -M -m -r -C -F"),
        "sed gsed": Spec(
            "-e -f -l --expression --file --line-length", optional="i", reader=handlers.sed
        ),
        "awk gawk mawk nawk": Spec(
            "-f -v -F -i -E -l -e --file --assign --field-separator --include --source --exec "
            "--load",
            runs=Runs.CODE,
            reader=handlers.awk,
        ),
        "yq": Spec(YQ, modes=(("-i --inplace", Spec(YQ, subs={YQ_RUN: YQ_EDIT, "*": YQ_EDIT})),)),
        # Writers: what their operands or options name.
        "tee": Spec("--output-error", writes=Files.ALL),
        "sponge dos2unix unix2dos": Spec(writes=Files.ALL),
        "touch": Spec("-d -t -r --date --reference", writes=Files.ALL),
        "mkdir": Spec("-m --mode --context", writes=Files.ALL),
        "mkfifo": Spec("-m --mode", writes=Files.ALL),
        "truncate": Spec("-s -r --size --reference", writes=Files.ALL),
        "rename": Spec(writes=Files.ALL_BUT_FIRST),
        "rm rmdir unlink": Spec("--interactive", writes=Files.operands(removes=True)),
        "shred": Spec("-n --interactive", writes=Files.operands(removes=True)),
        "cp": Spec(f"{COPY} --reflink --sparse", reader=handlers.copy),
        "mv ln": Spec(COPY, reader=handlers.copy),
        "install": Spec(f"{COPY} -m -o -g -C --mode --owner --group", reader=handlers.copy),
        "chmod chown chgrp chattr": Spec(reader=handlers.modes),
        "dd": Spec(writes=Files.prefixed("of=")),
        "sort shuf": Spec(writes="-o --output"),
        "tree": Spec(writes="-o"),
        "uniq": Spec("-f -s -w --skip-fields --skip-chars --check-chars", writes=Files.operand(2)),
        "xxd": Spec("-c -g -l -n -o -s", writes=Files.operand(2)),  # `xxd IN OUT`, `xxd -r HEX OUT`
        "mktemp": Spec(
            "--suffix", Files.operand(1), into="-p --tmpdir", modes=(("-t -u --dry-run", READ),)
        ),
        "split": Spec(
            "-a -b -C -d -l -n -t --suffix-length --bytes --lines --number",
            Files.operand(2, default="x", pattern=True),
        ),
        "csplit": Spec(
            "-b -n --suffix-format --digits",
            (
                Files.option("-f", default="xx", pattern=True),
                Files.option("--prefix", pattern=True),
            ),
        ),
        "rsync": Spec(
            "-e -f -T --exclude --include --filter --rsh --temp-dir", reader=handlers.rsync
        ),
        "scp": Spec("-c -F -i -J -l -o -P -S", reader=handlers.rsync),
        "gzip gunzip bzip2 bunzip2 xz unxz lzma zstd unzstd": Spec(
            "-S --suffix", writes=Files.ALL, modes=(("-c --stdout -l --list -t --test", READ),)
        ),
        "vi vim nvim nano emacs ed ex pico": Spec("-c -S -T -t -u -i", reader=handlers.editor),
        "curl": Spec(
            CURL,
            writes="-o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --stderr "
            "--etag-save --libcurl",
            into="--output-dir",
            reader=handlers.curl,
        ),
        "wget": Spec(
            "-O -P -e -i -B -t -T -w -U -l -A -R -D -Q -I -X --output-document --header "
            "--directory-prefix --user-agent --tries --timeout --wait --level --accept --reject "
            "--domains --user --password --post-data --input-file",
            writes="-o --output-file -a --append-output",
            modes=(("--spider", READ),),
            reader=handlers.wget,
        ),
        "tar bsdtar gtar": Spec(
            "-f -C -b -T -X -K -N -V -g -H --file --directory --exclude --files-from "
            "--exclude-from --format",
            reader=handlers.tar,
        ),
        "unzip": Spec(
            "-x -P", writes=Files.MEMBERS, into="-d", modes=(("-l -v -t -p -Z -z", READ),)
        ),
        "zip": Spec("-b -n -x -i -t -P --exclude --include --password", writes=Files.operand(1)),
        "patch": Spec(
            "-p -d -i -o -B -D -F -r -V -z -g -Y --strip --directory --input --output "
            "--reject-file --prefix --suffix",
            modes=(("--dry-run -C", READ),),
            reader=handlers.patch,
        ),
        # git, and what reroutes its hooks.
        "git": Spec(
            "-c --config-env --git-dir --namespace",
            chdir="-C --work-tree",
            foreign="--exec-path",  # where git finds the programs of its sub-commands
            subs=GIT,
            reader=git.git,
        ),
        "husky": Spec(hooks=True),
        "lefthook": Spec(subs={HOOKED: Spec(hooks=True)}),
        "pre-commit": Spec(subs={HOOKED: Spec(hooks=True), "run try-repo": WHOLE, "": WHOLE}),
        # Formatters and fixers: they write unless a check mode is given, or only with a flag.
        "black": formatter(
            checks="--check --diff --code -c",
            values="-l --line-length -t --target-version --include --exclude --extend-exclude "
            "--config --force-exclude --stdin-filename -W --workers",
        ),
        "isort": formatter(
            checks="--check --check-only -c --diff --stdout --show-files",
            values="--settings-path --sp -l --line-length --profile -p",
        ),
        "pyupgrade": formatter(),
        "autopep8": formatter("-i --in-place", "-d --diff", "--max-line-length --select"),
        "yapf": formatter("-i --in-place", "-d --diff", "--style"),
        "autoflake": formatter("-i --in-place", "-c --check --check-diff"),
        "docformatter": formatter("-i --in-place", "-c --check"),
        "prettier": formatter(
            "--write -w", "--check -c --list-different -l", "--config --ignore-path --parser"
        ),
        "eslint": formatter("--fix", "--fix-dry-run", "-c --config --ext --rule"),
        "gofmt goimports": formatter("-w", "-l -d", dash=True),
        "clang-format": formatter("-i", "--dry-run -n", dash=True),
        "rustfmt": formatter(checks="--check", values="--edition --config-path"),
        "stylua": formatter(checks="--check -c"),
        "shfmt": formatter("-w --write", "-d -l", "-i -ln", dash=True),
        "standard": formatter("--fix"),
        "stylelint": formatter("--fix", values="--config"),
        "markdownlint": formatter("--fix -f", values="-c --config"),
        "markdownlint-cli2": formatter("--fix"),
        "rubocop": formatter(
            "-a -A --autocorrect --auto-correct --autocorrect-all --auto-correct-all -x "
            "--fix-layout",
            values="-c --config",
        ),
        "swiftformat": formatter(checks="--lint --dryrun"),
        "ktlint": formatter("-F --format"),
        "ruff": Spec(
            subs={
                "format": formatter(checks="--check --diff --no-fix", values=RUFF),
                "check *": formatter("--fix --fix-only", "--check --diff --no-fix", RUFF),
            }
        ),
        "terraform": Spec(subs={"fmt": formatter(checks="-check", dash=True)}),
        "mix": Spec(subs={"format": formatter(checks="--check-formatted")}),
        "dotnet": Spec(subs={"format": formatter(checks="--verify-no-changes")}),
        "php-cs-fixer": Spec(subs={"fix": formatter(checks="--dry-run")}),
        "biome": Spec(
            subs={"check format lint ci migrate": formatter("--write --apply --fix --apply-unsafe")}
        ),
        # Package managers: what changes the manifest, what runs a command.
        "npm": manager(
            NPM,
            "install i add uninstall remove rm un update up version",
            "init pkg",
            execs="exec x",
        ),
        "yarn": manager(NPM, "add remove up upgrade version", "init", execs="exec dlx", more=TOOLS),
        "pnpm": manager(
            NPM, "add remove rm un uninstall up update", "init", execs="exec dlx", more=TOOLS
        ),
        "bun": manager(
            NPM, "add remove rm update", "init", execs="x", modes=(("-e --eval -p --print", NODE),)
        ),
        "uv": manager(
            PY, "add remove version", "init", "run", more={"tool": Spec(subs={"run": RUNNER})}
        ),
        "poetry": manager(PY, "add remove version", "init", "run"),
        "pdm rye": manager(PY, "add remove", "init", "run"),
        "hatch": manager(PY, "new version", runs="run"),
        "pipenv": manager("Pipfile", "install uninstall", runs="run"),
        "pixi": manager("pixi.toml", "add remove", "init", "run", execs="exec"),
        "cargo": manager(
            "Cargo.toml", "add remove rm", "init", tree="fmt fix", more={"clippy": CLIPPY}
        ),
        "go": manager("go.mod", "get", tree="fmt generate fix", more={"mod": GO_MOD, **GO_BUILDS}),
        "conda mamba micromamba": manager("environment.yml", "", runs="run"),
        "npx": NPX,
        "pnpx bunx uvx": RUNNER,
        "pipx": Spec(subs={"run": RUNNER}),
    }
)
# Environment a program reads as something to run, set on the line (`X=v CMD`, `export`,
# `env X=v`): a command it runs, read as one of the line's; folders or files it loads code
# from, unknown code when outside the project; or what chooses which program a name runs
# (or what a shell runs first), which makes the line's programs unknown wherever it points.
RUN_BY = names(
    "GIT_EXTERNAL_DIFF GIT_SSH GIT_SSH_COMMAND GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR "
    "GIT_ASKPASS SSH_ASKPASS GIT_PROXY_COMMAND EDITOR VISUAL PAGER MANPAGER LESSOPEN "
    "LESSCLOSE PROMPT_COMMAND"
)
LOADED_FROM = names(
    "PYTHONPATH PYTHONSTARTUP NODE_PATH NODE_OPTIONS PERL5LIB PERL5OPT RUBYLIB RUBYOPT "
    "LD_PRELOAD GIT_EXEC_PATH JAVA_TOOL_OPTIONS"
)
CHOOSING = names(
    "PATH BASH_ENV ENV ZDOTDIR SHELLOPTS BASHOPTS LD_LIBRARY_PATH LD_AUDIT GCONV_PATH "
    "PYTHONHOME PYTHONUSERBASE PYTHONEXECUTABLE PERL5DB NODE_REPL_EXTERNAL_MODULE"
)
MANAGERS = "npm yarn pnpm bun uv poetry pdm rye hatch pipenv pixi cargo go conda mamba micromamba"
# Adding or removing a dependency changes a manifest's dependencies and nothing more.
MANIFEST_WRITERS = frozenset(
    f"{name} {sub}" for name in MANAGERS.split() for sub in ("add", "remove")
)
PROGRAMS = "black isort ruff autopep8 yapf autoflake pyupgrade docformatter pip pytest mypy"
MODULES.update({name: TABLE[name] for name in PROGRAMS.split()})  # as the program itself
