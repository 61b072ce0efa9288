// Package permission decides whether a tool intent may run: allow, ask or
// deny ([contract.Decision]), and who decided. It is a stage of the tool
// runtime, between validation and execution; it runs nothing, and its
// verdict becomes the tool.permission event ([Verdict.Event]).
//
// # The order of a decision
//
// [Policy.Decide] looks at a request in this order, and the first step that
// answers decides:
//
//  0. What nothing may allow: a bash command that sweeps away the
//     workspace, its repository, the home directory or / (see Sweeps
//     below) is denied by [ByPolicy], in every mode, yolo included,
//     whatever the rules. Its verdict is a Deny, so no hook is asked and
//     no person either, and a headless run keeps it as it is.
//  1. Deny rules. Deny wins over everything: over allow and ask rules and
//     over every mode, yolo included. One denied simple command denies the
//     whole bash command.
//  2. Plan mode's ceiling: in plan mode every tool that is not read-only is
//     denied, even when an allow rule matches, and [Policy.Hidden] keeps it
//     out of the model's sight. Plan is a promise that nothing changes.
//  3. Ask rules, honoured in every mode, yolo included: a person who wrote
//     ask = ["bash(git push:*)"] wants to be asked.
//  4. Allow rules.
//  5. The mode: default allows reads, and read-only commands in a sandbox
//     (see Containment), and asks for the rest; accept-edits also allows
//     edits (write-risk tools) whose path is inside the workspace, and
//     the commands a sandbox contains; yolo allows everything.
//
// A read is a tool that is read-only and of read risk in the registry; a
// read-only tool that reaches the network is not a read and asks.
//
// Each rule says where it came from ([Rule.Origin]): the person's own
// configuration, the project's file, the person's answers, a flag. Only
// the project's file, which comes with the repository, is held back: its
// allow rules let a command run, never lift default mode's question before
// what the command writes (see below).
//
// # Rules
//
// A [Rule] names a tool and, optionally, a pattern: bash(go test:*) for a
// command prefix, edit_file(docs/**) for a doublestar glob on the path
// relative to the workspace root, read_file alone for any input. Allow rules
// match strictly, deny and ask rules broadly, so that every doubt falls on
// the careful side:
//
//   - a bash allow rule matches a simple command whose words, variable
//     assignments in front included, start with the rule's (CGO_ENABLED=0
//     go test needs bash(CGO_ENABLED=0 go test:*), since an assignment such
//     as PATH=... changes what runs); a deny or ask rule also matches with
//     the assignments dropped, the command name compared by its base name
//     (/bin/rm is rm), and after a wrapper that runs its arguments (sudo,
//     env, xargs, timeout, nice...) at any later word;
//   - a path allow rule matches where the path really leads, symbolic links
//     followed; a deny or ask rule also matches the path as written, so a
//     link can hide a denied file from neither.
//
// # Bash commands
//
// A bash command is read by [shell.Parse], never run. Every
// simple command anywhere in it (lists with && || ;, pipelines, subshells,
// { } groups, command substitutions $( ) and backticks, process
// substitutions, here-documents, if/for/while/case bodies, function bodies)
// must be allowed by a rule for the whole to be allowed by rules, and any
// of them caught by a deny rule denies the whole. A function, an alias or a
// builtin is a command like any other: cd, export, eval and bash -c need
// rules of their own. The literal scripts given to eval, sh -c or bash -c
// are read as well, and their commands must be allowed and are checked
// against deny rules too.
//
// A command also runs what its arguments name, and [shell.Parse] knows the
// programs that do (see package shell): the program of a wrapper (sudo,
// env, timeout, xargs), of find -exec, of go test -exec and -toolexec, of
// npx and npm exec is a command of its own, which must be allowed as well
// and is checked against deny rules too, so bash(go test:*) does not allow
// go test -exec 'sh -c ...', and --deny 'bash(rm:*)' stops find . -exec rm
// {} +, find . -delete, xargs rm, env -S 'rm -rf x', busybox rm and
// git -c alias.z='!rm -rf x' z. A rule naming such a program among its own
// words allows it too: bash(npm exec eslint:*) allows the eslint it runs,
// and an exact rule allows everything its words run, the code written in
// them included.
//
// Some things cannot be checked, and no prefix rule ever allows them: a
// command that does not parse or is longer than shell.MaxSource; a command
// whose name is computed at run time ($CMD args, $(which go) test) or would
// be expanded by the shell (globs, braces); a computed script for eval or
// bash -c, or a computed word where an option of go, git, find or a
// wrapper could be (go test $FLAGS); code in a language the analyser does
// not read (python3 -c, node -e, awk's system(), sed's e; an exact rule,
// which names that code, may allow it), code read from a file or standard
// input (source, awk -f, echo ... | sh), configuration that makes programs
// run code from elsewhere (git -c core.hooksPath, GOFLAGS, LD_PRELOAD); and
// the places where bash evaluates text as code behind the scenes:
// arithmetic on names ($((x)), (( )), let, for ((;;)), [[ x -eq y ]],
// ${a[i]}, ${s:i}), ${!x}, ${x@P}, declare -i and -n, and computed or
// subscripted variable names given to read, printf -v, unset, test -v,
// declare and the like (x='a[$(rm -rf ~)]' turns any of these into rm).
// Such a command asks in default and accept-edits modes. In yolo mode it
// is allowed, unless there are deny or ask rules with patterns (for bash
// or the file tools): then it asks, because "deny wins" must not be undone
// by writing $(echo rm) instead of rm.
//
// # Sweeps
//
// A command that [shell.Command.Sweep] reads as sweeping something away
// (rm -r, find -delete or -exec rm where find's expression removes every
// file it finds, rsync --delete, mv of its sources, git clean -f with -d
// or -x, git reset --hard, git checkout, git restore, git rm -r, git
// switch -f), anywhere in the script (after wrappers, in sh -c and eval,
// in find -exec), is refused when it is aimed at the workspace root (.,
// ./, $PWD, ${PWD}, ~+, $(pwd), $(realpath .), $(readlink -f .), $(git
// rev-parse --show-toplevel), its absolute path, src/.., a * or .*
// there), at a directory that holds it (.., /), at the workspace's
// repository (.git, or the one a .git file names, and a directory in it
// or anything in its objects/ or refs/), or at the home directory (~,
// $HOME, its absolute path) or one that holds it. The script's cd
// commands are followed while they name where they go (cd src && rm -rf
// .. is refused); after one that does not, a relative path is not known,
// and the command is decided as before. git reset --hard, git checkout
// -f and git switch -f throw away what changed in the whole working tree,
// so they are refused whenever they run inside the workspace's
// repository; git checkout -- . and git restore . everything below where
// they run, so they are refused where that is the workspace root or
// above it (and with :/ anywhere). git told its repository or working
// tree (--git-dir, --work-tree, GIT_DIR, GIT_WORK_TREE) is refused when
// either is in the workspace or is computed. mv of everything in the
// root into a directory in it (mv * src/) and git clean -X (only what git
// ignores) are not refused. Links are followed when comparing. The
// reason names what was aimed at and says that it cannot be undone and
// is never allowed.
//
// Other commands that change files are undoable by rein's checkpoints
// when everything they change is inside the workspace root: an Ask for
// such a command has [Verdict.Undoable] set, and the question says so.
//
// # What a command reads and writes
//
// The files a command reads and writes, where the analysis sees them (the
// targets of its redirections, and the files the arguments of cat, grep,
// cp, sort -o, tee, sed -i, tar, go test -o and many more name), are judged
// like the file tools' own access, every path cleaned and resolved through
// its symbolic links first:
//
//   - A read outside the workspace roots asks: no bash rule allows it (a
//     read_file rule with an absolute pattern may), since the file tools
//     refuse it. A read known only at run time (cat $f) asks too.
//   - A glob is judged by what it expands to when the decision is made,
//     as bash would expand it, every match resolved through its links
//     (cat doc?/.env reads outside when docs is a link out), within a
//     budget of directory entries past which it is not known; a glob that
//     names no file lists the directories it expands in, which is a read
//     of them (echo ~/*, printf %s /home/*/x).
//   - A write inside the workspace that a command's own words name
//     (touch m1, go test -coverprofile=c.out, sed -i) is allowed by the
//     rule that allows the command, when the rule is the person's (their
//     configuration, a flag, an answer): the rule names it. For a prefix
//     rule that is every write its command's words can name inside the
//     workspace: bash(sort:*) in the person's file allows sort -o
//     README.md, and bash(cp:*) allows cp x README.md, each overwriting a
//     file without a question (the protected paths and the outside still
//     ask); the same rule in a project's file does not. A write by a
//     redirection (echo x > notes.txt), which is the shell's, asks in
//     default mode even when rules allow every command, unless a
//     write_file or edit_file rule allows the path; so does a write of a
//     command only a project's rule allows. In accept-edits mode a write
//     inside the workspace is allowed, as an edit is.
//   - No rule allows a write outside the writable roots (the workspace's
//     and [Containment.Writable]), a write under .git or .rein (anywhere in
//     a root, in any case, through any link; or in git's hooks directory,
//     core.hooksPath; or to a whole tree that holds one, rm -rf .), a
//     redirection to or from /dev/tcp or /dev/udp, or a write known only at
//     run time; the mode decides (ask, or allow in yolo).
//   - Only /dev/null, /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd/N,
//     exactly so written, are harmless to write (/dev/tty is not: it goes
//     around what rein shows and takes what the person types); /dev/zero
//     and /dev/urandom are harmless to read.
//   - Deny and ask rules of read_file (for a read) and write_file and
//     edit_file (for a write) catch what bash does too: --deny
//     'write_file(secret/**)' stops tee secret/x and cp a secret/x; a tree
//     that may hold such files (grep -r x .) asks.
//
// # Read-only commands
//
// A command that only reads runs without asking in default and
// accept-edits modes, as a read does, when a sandbox contains it: every
// simple command of it is one [shell.Command.ReadOnly] reads as read-only
// (ls, cat, grep, find without -exec, -delete or -fprint, git status,
// diff, log and show with the options of their allowlists, jq, sed
// without w or -i..., no assignment before it, no glob that could expand
// to an option of a program whose options write or run), every file it
// names, every redirection it reads and every glob it expands is inside
// the workspace, and it writes none but /dev/null and the standard
// streams. Its reason says "a read-only command".
//
// git also runs what its repository's configuration names, and a
// repository comes with the workspace (a tarball with its .git, a
// directory committed in the shape of one), so a command with git is
// read-only only when the script does not change directory (cd, pushd)
// and gives git no -C, -c, --git-dir, --work-tree, --exec-path or
// --namespace (which choose another repository or what git runs), and
// the repository git finds from the workspace root, as git finds it (up
// from the root; a .git directory, a gitfile, a directory in the shape of
// a bare repository), and each submodule its index records that is
// checked out, has a configuration (config, config.worktree, and a
// linked worktree's common one) that the policy can read (git's format,
// at most 1 MiB each) and that names no program git runs (core.fsmonitor,
// core.pager, pager.*, diff.external, a diff driver's textconv or command,
// a filter's clean, smudge or process, log.showSignature with
// gpg.program), reads nothing elsewhere (core.worktree, include.path,
// includeIf, core.excludesFile, diff.orderFile...), and no
// post-index-change hook, which git status runs when it writes the index.
// The person's own configuration (~/.gitconfig) is theirs, and trusted.
// Otherwise the command asks, and its reason names the file and the key.
// The index's submodules are kept between decisions while the file stays
// the same.
//
// The sandbox is required because the analysis does not follow what a
// link in the workspace or a tree a command walks (grep -R) leads to: the
// sandbox hides the credential stores from it. Without a sandbox a
// read-only command asks, and its reason says why. Plan mode denies bash
// all the same.
//
// # Containment
//
// [Policy.WithContainment] tells the policy whether an OS sandbox contains
// the commands. In accept-edits mode, a command that no rule denies or asks
// about and whose every effect the analysis sees and judges fine (nothing
// opaque, every program one the analysis knows, [shell.Known], and none
// found through a PATH the command sets, no read outside the workspace,
// no write but inside the writable roots, no /dev/tcp) runs without asking when the sandbox keeps it off the
// network: the sandbox contains it. Without a sandbox the same command
// asks, and the reason says so. Yolo allows what no rule denies or asks
// about, sandbox or not.
//
// # Hidden paths
//
// [Policy.WithHidden] gives the policy the paths the sandbox hides from
// commands (the credential stores, rein's own configuration and
// sessions), with those still readable there (the session's artifacts,
// the skills' directories). A file tool's call whose path is or lies in
// one, as given or where its links lead, is a firm ask in every mode,
// yolo and plan included: where the workspace holds them (the home
// directory, /), a read tool must not be the way around the sandbox. It
// asks rather than denies, so that a person may let the model read
// ~/.ssh/config for a task; no rule is suggested for it, since none would
// lift the question. (The search tools themselves do not walk into them;
// see package builtin's Options.Hidden.)
//
// # The workspace
//
// A policy is made over a [workspace.Workspace], which says where a tool's
// path leads (relative to the root, every symbolic link followed) and
// whether that is inside the root or a root the user added (accept-edits
// allows edits only inside). The file tools themselves refuse a path
// outside, with [workspace.ErrOutside].
//
// # Headless runs, "always" and "never"
//
// A run that cannot ask never waits: [Policy.ForHeadless] turns an Ask into
// a Deny by "headless" whose reason gives the exact flags that would allow
// the request next time (--allow 'bash(go test:*)' or a --permission-mode),
// each one checked by deciding again with it. [Policy.SuggestRules] gives
// the narrowest rules that allow a request, so that, saved by an
// interactive "always", the command runs without a question next time, its
// writes inside the workspace included (echo x > notes.txt gives
// bash(echo x) and write_file(notes.txt)); [Policy.DenyRules] gives those
// a "never" saves: the rules of what was the reason to ask, not of the
// read-only commands beside it (never on rm -rf build && echo cleaned
// denies rm -rf build; on ls > out.txt, write_file(out.txt)), and the
// exact command where the prefix an "always" would save also names
// read-only uses (never on git log --output=x denies that, not every git
// log). The person's answers are kept in their own
// file by project (config.Answers, ~/.config/rein/projects.toml), never
// in the repository:
//
//	[projects."/home/me/src/app".permissions]
//	allow = ["bash(go test:*)"]
//	deny = ["bash(rm -rf build)"]
//
// The configuration (package config) reads those lists back, with the
// user's and the project's [permissions], and rein hands them to [New] as
// [Rules], each with its [Origin].
package permission
