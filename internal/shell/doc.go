// Package shell reads bash scripts without running them: [Parse] turns a
// script into what it will run and what it will read and write, the
// simple commands with their words, the redirections with their targets,
// and the scripts nested in it. It is rein's only reader of shell syntax:
// the permission policy decides from it which rules a command needs, and
// why finds from it which paths a recorded command touched, so the two can
// never disagree about what a command is.
//
// # Words
//
// A [Word] is decoded as the shell would after quote removal, and says how
// far its text can be trusted ([Kind]): a Literal is exactly what the
// command receives; a Pattern has unquoted glob or brace characters (*, ?,
// a [ closed later in the word, a lone [ being the test command; a {
// closed later with a comma or .. between, across quotes, {} being left
// as it is); a Dynamic word depends on run-time values. A command's
// arguments are brace-expanded as bash expands them, so that
// {r'm',-f,x} is the three words rm -f x; an expansion that would make
// more than 64 words is one Dynamic word that splits. A word starting with an
// unquoted ~ is marked [Word.Tilde]. [Word.Static] is what a caller that
// needs a path wants. A Dynamic word keeps its literal start
// ([Word.Prefix]: "-o=" in -o=$out) and says whether the shell may split
// it into several words or none ([Word.Splits]): an unquoted $x can put
// any option among a program's arguments.
//
// # Roles and programs
//
// Each word of a [Command] has a [Role]: RoleProgram for a word naming a
// program it runs, RoleCode for source code it runs, RoleWrite and
// RoleRead for files it writes or reads. A [Redirect] has a Role too.
//
// Parse knows the programs whose arguments run programs, hold code or name
// files, by their base name (/usr/bin/git is git), their options read as
// getopt_long, Go's flag package or the program itself reads them (long
// options abbreviated, clusters of short ones):
//
//   - A program argument is a command of its own, which follows its parent
//     in [Script.Commands] with [Command.Parent] and [Command.At] set: the
//     program of a wrapper (sudo, env, timeout, nohup, xargs, nice, command,
//     exec, busybox...), of find's -exec and -execdir ({} a file found; its
//     files are the ones below find's starting points), of go test's -exec
//     and -toolexec, of sort --compress-program, of npx, npm exec, pnpm dlx, uv run, git bisect run, tar
//     -I. find's -delete is an rm.
//   - Code in bash is read as a nested script, one level deeper: eval, sh
//     -c, trap, alias, su -c, flock -c, script -c, watch, sudo -s, find
//     -exec sh -c, git aliases starting with !, git -c core.pager=... and
//     the other configuration that names commands (core.sshCommand,
//     core.fsmonitor, diff.external, *.textconv, filter.*...), git rebase
//     --exec, tar --to-command, sed's e command, and the variables programs
//     run (GIT_SSH_COMMAND, PAGER, EDITOR, CC...).
//   - Code the analyser does not read is opaque: python -c, node -e, perl
//     -e, ruby -e, php -r, lua -e, deno eval, bun -e, awk programs that call
//     system() or use pipes or redirections, sed s///e, make --eval and
//     variables set on make's command line. When that code is written out
//     in the command's words, the command is [Command.Pinned]: a rule naming
//     the command exactly names the code. Code read from a file (source,
//     awk -f, sed -f), from standard input (a shell or an interpreter with
//     no script) or from configuration elsewhere (git -c core.hooksPath,
//     include.path, GIT_CONFIG_*, BASH_ENV, LD_PRELOAD, GOFLAGS) is opaque
//     and not pinned.
//   - A file argument is in [Command.Files], read or written, the whole
//     tree below it with -r and the like: the operands of cat, head, tail,
//     less, grep, rg, wc, sort (-o), uniq, diff, cmp, cp (the last written),
//     mv, rm, rmdir, touch, mkdir, ln, chmod, chown, tee, dd (if=, of=), tar,
//     zip, unzip, rsync, file, stat, xxd, od, base64, jq and more; sed -i's
//     and sed's w and r files; go's -o and profiles; git config's file;
//     curl's and wget's outputs and uploads. A path known only at run time
//     is a Dynamic Path.
//
// [Command.ReadOnly] reports a command that only reads: one of the
// programs of readonly.go's table (ls, cat, grep, find, git status, git
// log, jq, sed...) with none of the options that would make it write, run a
// program or read files named elsewhere (find -exec, sort -o and
// --compress-program, date -s, printf -v, jq -L and -f, in a cluster of
// short options too: jq -nf), no assignment before it, and, for a
// program whose options can do such things, no glob or computed word that
// could expand to one (a file named -ofoo in the directory). git's
// options are taken from an allowlist of each subcommand (git log --stat
// and -S, not --output, -O or --ext-diff; git blame -w, not -S; git grep
// -n, not -O), none before the subcommand but the harmless ones (-C, -c,
// --git-dir and the like choose another repository or what git runs).
// What it reads is in its Files; which repository git reads, and what its
// configuration makes git run, is the caller's to judge.
//
// [Command.Sweep] reports what a command removes or throws away as a
// whole (rm -r's operands, find -delete's starting points, git reset
// --hard's working tree, git clean's directory...), for a caller that
// must refuse some of it whatever the rules. A word that starts with
// $HOME, ${HOME}, $PWD, ${PWD}, $(pwd), `pwd -P`, $(realpath .),
// $(readlink -f .) or $(git rev-parse --show-toplevel) and is literal
// after it keeps that start ([Word.Anchor]), so that a caller who knows
// what they hold can place it.
//
// [Known] reports the programs the analyser knows: those above, and the
// harmless ones that name no file and run nothing (echo, printf, test,
// pwd, basename...); what any other program does with its arguments is
// not seen. tmux, screen, systemd-run, systemctl, at, crontab,
// emacsclient, xdotool, dbus-send, busctl and the like have a server
// outside the command run code, which is opaque.
//
// What cannot be placed (a computed word where an option could be, an
// unknown option before a wrapper's program) is opaque, and such a command
// is [Command.Unplaced]: a caller that must not be fooled (a deny rule)
// looks at every word after its name, as after a wrapper ([IsWrapper]).
//
// # Nested scripts and opaque commands
//
// The literal scripts a command runs are read to a depth of [MaxNesting]
// (4): their commands and redirections follow the command that runs them
// in the Script's flat lists, with a greater Depth and [Command.Script]
// set. A deeper one is opaque, and a permission rule asks about it.
// Commands run through program arguments stay at their parent's depth, in
// chains of at most eight.
//
// What cannot be seen through is listed in [Script.Opaque] (and, for what
// a command's own words hold, in [Command.Opaque]): a script that does not
// parse or passes the limits, a command name computed at run time or made
// of a pattern, a computed nested script, code in another language, and
// the places where bash evaluates text as code behind the scenes
// (arithmetic on names, (( )), let, for ((;;)), [[ x -eq y ]], ${a[i]},
// ${s:i}, ${!x}, ${x@P}, declare -i and -n, and computed or subscripted
// names given to read, printf -v, unset, test -v or declare). A caller
// deciding whether a command is safe must treat anything opaque as
// unknown.
//
// # Limits
//
// Parse reads at most [MaxSource] bytes (64 KiB) of a script, refuses
// nesting of brackets, backquotes or blocks deeper than the parser can take
// in bounded time and stack (a thousand brackets, four thousand blocks,
// counted conservatively, and ten thousand brackets and backquotes opened
// in all),
// and visits at most about a million syntax nodes over a script and its
// nested ones; what passes a limit is opaque and listed in
// [Script.Unparsed]. So any input costs time and memory linear in its size.
package shell
