package shell

import (
	"strings"
)

// gitGlobal are the options git takes before its subcommand.
var gitGlobal = opts("+hpPv"+"C:c:", "help version paginate no-pager bare literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs "+
	"no-optional-locks no-replace-objects no-lazy-fetch no-advice exec-path:: html-path man-path info-path git-dir: work-tree: "+
	"namespace: config-env: list-cmds: super-prefix: attr-source:")

// gitProgram reads git: its options before the subcommand (-C reads
// another repository, whose configuration can name programs; -c sets
// configuration, some of which names programs or code; --exec-path and
// --config-env take them from elsewhere), an alias the command line
// defines, and the subcommands that run programs or write files.
func gitProgram(x *call) {
	cw := x.cw
	sub := -1
	aliases := map[string]Word{}
	gitGlobal.scan(cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("the subcommand of %s cannot be told before it runs")
			return false
		case a.opt == "":
			sub = a.i
			return false
		case a.opt == "c" && a.has:
			gitConfig(x, a.vi, a.val, aliases)
		case a.opt == "C" && a.has:
			x.file(a.vi, a.val, RoleRead)
			x.move()
		case a.opt == "config-env":
			x.opaque("%s takes configuration from the environment, which cannot be checked")
		case a.opt == "exec-path" && a.has:
			x.opaque("%s runs git's programs from a directory it names")
		case (a.opt == "git-dir" || a.opt == "work-tree") && a.has:
			x.tree(a.vi, a.val, RoleWrite)
			x.move()
		}
		return true
	})
	if sub < 0 || !cw[sub].Static() {
		return
	}
	if v, ok := aliases[strings.ToLower(cw[sub].Text)]; ok {
		gitAlias(x, sub, v)
		return
	}
	gitSubcommand(x, sub)
}

// gitConfig reads git -c NAME=VALUE (or -c NAME), given in the command's
// word cw[i]: an alias is kept for the subcommand to come; a variable
// whose value git runs as a command is read as a script; one that makes
// git run code from elsewhere is opaque.
func gitConfig(x *call, i int, v Word, aliases map[string]Word) {
	if !v.Static() {
		x.opaque("the configuration %s sets is computed at run time")
		return
	}
	key, value, _ := strings.Cut(v.Text, "=")
	k := strings.ToLower(key)
	if name, ok := strings.CutPrefix(k, "alias."); ok {
		aliases[name] = Word{Text: value}
		return
	}
	switch gitKey(k) {
	case 'c':
		if k == "core.fsmonitor" && gitBool(value) {
			return
		}
		if strings.HasPrefix(k, "credential.") || strings.HasPrefix(k, "submodule.") {
			value = strings.TrimPrefix(value, "!")
		}
		x.code(i, Word{Text: value})
	case 'h':
		x.opaque("%s sets " + key + ", which makes git run code from elsewhere")
	}
}

// gitKey classifies a git configuration variable (lower case): 'c' for
// one whose value is a command git runs (core.pager, core.sshCommand,
// diff.<driver>.textconv...), 'h' for one that makes git run code from
// elsewhere (core.hooksPath, include.path, url.<base>.insteadOf towards
// a transport that runs commands), 0 for the rest.
func gitKey(k string) byte {
	parts := strings.Split(k, ".")
	sec, name := parts[0], parts[len(parts)-1]
	switch sec + "." + name {
	case "core.sshcommand", "core.pager", "core.editor", "core.fsmonitor", "core.askpass", "core.gitproxy",
		"core.alternaterefscommand", "diff.external", "sequence.editor", "interactive.difffilter",
		"uploadpack.packobjectshook", "gpg.program", "credential.helper", "diff.textconv", "diff.command",
		"filter.clean", "filter.smudge", "filter.process", "merge.driver", "difftool.cmd", "mergetool.cmd",
		"browser.cmd", "man.cmd", "remote.uploadpack", "remote.receivepack", "sendemail.tocmd",
		"sendemail.cccmd", "sendemail.headercmd", "sendemail.smtpserver", "web.browser", "submodule.update",
		"instaweb.httpd", "instaweb.browser":
		return 'c'
	case "core.hookspath", "include.path", "includeif.path", "init.templatedir", "core.worktree", "protocol.allow",
		"url.insteadof", "url.pushinsteadof", "remote.vcs", "core.attributesfile", "core.gitdir":
		return 'h'
	}
	if sec == "pager" {
		return 'c'
	}
	return 0
}

// gitBool reports whether a value reads as a git boolean.
func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// gitAlias reads a subcommand defined as an alias on the command line: a
// value starting with ! is a script, run with the arguments after it;
// another is git's arguments, read as git again (with the options before
// the alias, which may define other aliases).
func gitAlias(x *call, sub int, v Word) {
	if script, ok := strings.CutPrefix(v.Text, "!"); ok {
		x.code(sub, Word{Text: script})
		return
	}
	words, ok := splitWords(v)
	if !ok {
		x.unplaced("the alias %s runs cannot be read")
		return
	}
	run := append(append(append([]Word(nil), x.cw[:sub]...), words...), x.cw[sub+1:]...)
	x.runWords(sub, run)
}

// gitSubcommands are the options of git's subcommands that name a command
// git runs (as a script), by subcommand: short letters, then long names.
var gitSubcommands = map[string]struct {
	opts              *options
	code, write, read string
}{
	"rebase":        {opts: opts("iIkmnqvx:s:X:C:", "exec: strategy: strategy-option: onto: interactive root autosquash"), code: "x exec"},
	"difftool":      {opts: opts("dgnyt:x:", "extcmd: tool: dir-diff gui no-prompt prompt trust-exit-code"), code: "x extcmd"},
	"fetch":         {opts: opts("afkmnpPquvj:", "upload-pack: all append depth: deepen: shallow-since: shallow-exclude: prune tags jobs: dry-run"), code: " upload-pack"},
	"pull":          {opts: opts("afkmnpPqrvj:", "upload-pack: rebase:: depth: ff-only no-ff squash"), code: " upload-pack"},
	"clone":         {opts: opts("lsqvnobj:c:u:", "upload-pack: template: config: separate-git-dir: reference: origin: branch: depth: bare mirror recursive recurse-submodules:: jobs:"), code: "u upload-pack", write: " separate-git-dir"},
	"ls-remote":     {opts: opts("hqtu:", "upload-pack: heads tags refs quiet get-url sort: symref"), code: "u upload-pack"},
	"archive":       {opts: opts("lvo:", "exec: output: remote: format: prefix: worktree-attributes"), code: " exec", write: "o output"},
	"push":          {opts: opts("nqvfuo:", "receive-pack: exec: repo: all mirror tags force dry-run porcelain delete push-option:"), code: " receive-pack exec"},
	"send-pack":     {opts: opts("q", "receive-pack: exec: all dry-run force"), code: " receive-pack exec"},
	"fetch-pack":    {opts: opts("kqv", "upload-pack: exec: all depth:"), code: " upload-pack exec"},
	"grep":          {opts: opts("abcEFGhHiIlLnopPqrvwzA:B:C:e:f:m:O::", "open-files-in-pager:: file: max-depth: threads: context: after-context: before-context: max-count:"), code: "O open-files-in-pager", read: "f file"},
	"filter-branch": {opts: opts("fd:", "setup: env-filter: tree-filter: index-filter: parent-filter: msg-filter: commit-filter: tag-name-filter: subdirectory-filter: prune-empty original: state-branch: force"), code: " setup env-filter tree-filter index-filter parent-filter msg-filter commit-filter tag-name-filter"},
	"send-email":    {opts: opts("", "smtp-server: to-cmd: cc-cmd: header-cmd: to: cc: bcc: from: subject: in-reply-to:"), code: " smtp-server to-cmd cc-cmd header-cmd"},
	"instaweb":      {opts: opts("dlp:b:m:", "httpd: browser: local port: module-path: start stop restart"), code: "db httpd browser"},
	"format-patch":  {opts: opts("knpqsvo:", "output-directory: stdout"), write: "o output-directory"},
	"diff":          {opts: opts("pRuU:O:S:G:I:", "output: ext-diff no-ext-diff textconv no-textconv no-index"), write: " output", read: "O"},
	"blame":         {opts: opts("bcflnpstwMCeL:S:", "contents: ignore-revs-file: ignore-rev: incremental porcelain line-porcelain root show-stats"), read: "S contents ignore-revs-file"},
	"log":           {opts: opts("pn:U:O:S:G:I:L:", "output: ext-diff textconv"), write: " output", read: "O"},
	"show":          {opts: opts("pn:U:O:S:G:I:L:", "output: ext-diff textconv"), write: " output", read: "O"},
	"ls-files":      {opts: opts("cdmoisukztvfx:X:", "exclude: exclude-from: exclude-per-directory: with-tree: format: abbrev::"), read: "X exclude-from"},
}

// gitSubcommand reads the subcommand at cw[sub] and its arguments.
func gitSubcommand(x *call, sub int) {
	cw := x.cw
	name := cw[sub].Text
	switch name {
	case "config":
		gitConfigCommand(x, sub)
		return
	case "bisect", "submodule":
		i := subcommand(cw, sub+1)
		switch {
		case i < 0:
		case name == "bisect" && cw[i].Text == "run" && i+1 < len(cw):
			x.run(i+1, len(cw))
		case name == "submodule" && cw[i].Text == "foreach":
			if j := subcommand(cw, i+1); j > 0 {
				x.code(j, joined(cw[j:]))
			}
		}
		return
	case "init", "worktree", "bundle":
		gitTargets(x, sub)
	}
	spec, ok := gitSubcommands[name]
	if !ok {
		return
	}
	var operands []int
	spec.opts.scan(cw, sub+1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("the arguments of %s cannot be told before it runs")
			return false
		case a.opt == "":
			operands = append(operands, a.i)
		case !a.has:
		case has(spec.code, a):
			x.code(a.vi, a.val)
		case has(spec.write, a):
			x.file(a.vi, a.val, RoleWrite)
		case has(spec.read, a):
			x.file(a.vi, a.val, RoleRead)
		case name == "clone" && (a.opt == "c" || a.opt == "config"):
			gitConfig(x, a.vi, a.val, map[string]Word{})
		case name == "clone" && a.opt == "template":
			x.opaque("%s copies hooks from a template directory, which cannot be checked")
		}
		return true
	})
	if name == "diff" {
		// git diff --no-index compares two files, and so does git diff
		// when one of them is outside the working tree: an operand that
		// is a revision reads as a file inside, which is harmless.
		for _, i := range operands {
			x.file(i, cw[i], RoleRead)
		}
	}
	if name == "clone" && len(operands) > 1 {
		x.tree(operands[1], cw[operands[1]], RoleWrite)
	}
}

// gitTargets reads the directories git init, git worktree add and git
// bundle create write.
func gitTargets(x *call, sub int) {
	cw := x.cw
	var ops []int
	for i := sub + 1; i < len(cw); i++ {
		if t := cw[i].Text; !strings.HasPrefix(t, "-") || !cw[i].Static() {
			ops = append(ops, i)
		} else if t == "-b" || t == "-B" || t == "--reason" || t == "--template" {
			if t == "--template" {
				x.opaque("%s copies hooks from a template directory, which cannot be checked")
			}
			i++
		}
	}
	switch {
	case cw[sub].Text == "init" && len(ops) > 0:
		x.tree(ops[0], cw[ops[0]], RoleWrite)
	case len(ops) > 1 && (cw[ops[0]].Text == "add" || cw[ops[0]].Text == "create"):
		x.tree(ops[1], cw[ops[1]], RoleWrite)
	}
}

// gitConfigCommand reads git config: a form that changes a variable writes
// the configuration file (.git/config, or ~/.gitconfig with --global, the
// file of --file), which decides what later git commands run.
func gitConfigCommand(x *call, sub int) {
	o := opts("lezf:t:", "global system local worktree file: blob: get get-all get-regexp get-urlmatch replace-all add unset unset-all "+
		"rename-section remove-section list edit get-color get-colorbool type: bool int bool-or-int path expiry-date null name-only "+
		"includes no-includes show-origin show-scope default: fixed-value comment: all value: url:")
	file := Word{Text: ".git/config"}
	var operands []int
	write, read := false, false
	o.scan(x.cw, sub+1, false, func(a arg) bool {
		switch {
		case a.unsure:
			write = true
			return false
		case a.opt == "":
			operands = append(operands, a.i)
		case a.opt == "global":
			file = Word{Text: "~/.gitconfig", Tilde: true}
		case a.opt == "system":
			file = Word{Text: "/etc/gitconfig"}
		case (a.opt == "f" || a.opt == "file") && a.has:
			file = a.val
		case a.opt == "worktree":
			file = Word{Text: ".git/config.worktree"}
		case a.opt == "blob":
			read = true
		case has("e add replace-all unset unset-all rename-section remove-section edit", a):
			write = true
		case has("l get get-all get-regexp get-urlmatch list get-color get-colorbool", a):
			read = true
		}
		return true
	})
	if !write && !read && len(operands) > 0 {
		switch first := x.cw[operands[0]].Text; {
		case first == "set" || first == "unset" || first == "rename-section" || first == "remove-section" || first == "edit":
			write = true
		case first == "get" || first == "list" || first == "get-color" || first == "get-colorbool":
		default:
			write = len(operands) > 1
		}
	}
	if write {
		x.file(sub, file, RoleWrite)
	}
}
