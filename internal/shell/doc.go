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
// a [ or { closed later in the word; a lone [ is the test command); a
// Dynamic word depends on run-time values. A word starting with an
// unquoted ~ is marked [Word.Tilde]. [Word.Static] is what a caller that
// needs a path wants.
//
// # Roles
//
// Each word of a [Command] has a [Role]: RoleProgram for the word naming
// a program it runs (its name, and through wrappers such as sudo, env,
// timeout or xargs the program they run), RoleCode for shell source it
// runs (eval's arguments, the script of sh -c), RoleWrite and RoleRead for
// files it writes or reads. A [Redirect] has a Role too. Roles are what a
// sandbox needs to contain a command; the wrappers' options are read on a
// best-effort basis, so a caller that must not be fooled (a deny rule)
// looks at every word after a wrapper, see [IsWrapper].
//
// # Nested scripts and opaque commands
//
// The literal scripts given to eval, sh -c, bash -c (and dash, zsh, ksh,
// mksh, ash), also after a wrapper (sudo bash -c '...'), are read too, to
// a depth of [MaxNesting] (4): their commands and redirections follow the
// command that runs them in the Script's flat lists. A deeper one is
// opaque, and a permission rule asks about it.
//
// What cannot be seen through is listed in [Script.Opaque]: a script that
// does not parse or passes the limits, a command name computed at run time
// or made of a pattern, a computed nested script, and the places where
// bash evaluates text as code behind the scenes (arithmetic on names, (( )),
// let, for ((;;)), [[ x -eq y ]], ${a[i]}, ${s:i}, ${!x}, ${x@P}, declare
// -i and -n, and computed or subscripted names given to read, printf -v,
// unset, test -v or declare). A caller deciding whether a command is safe
// must treat anything opaque as unknown.
//
// # Limits
//
// Parse reads at most [MaxSource] bytes of a script, refuses nesting of
// brackets or blocks deeper than the parser can take in bounded time and
// stack (a thousand brackets, four thousand blocks, counted conservatively),
// and visits at most about a million syntax nodes over a script and its
// nested ones; what passes a limit is opaque and listed in
// [Script.Unparsed]. So any input costs time and memory linear in its size.
package shell
