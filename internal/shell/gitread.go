package shell

import (
	"slices"
	"strings"
)

// gitAllow is what a subcommand of git that only reads may be given, as
// an allowlist: an option it does not name (one that reads a file named
// elsewhere, runs a program, writes, or is merely unknown) keeps the
// command from being read-only. Options are matched exactly, never by an
// abbreviation.
type gitAllow struct {
	// words are options allowed as they are: "--stat", "-p".
	words wordSet
	// valued are long options allowed with a value: "--format" allows
	// --format=%H, and --format alone, whose value, the next word, is read
	// as an argument of its own (which is stricter).
	valued wordSet
	// flags are short letters that may be clustered (-sb).
	flags string
	// numbers are short letters whose value is a number, attached (-n5,
	// -U3, -M50%) or, for those that require one, the next word.
	numbers string
	// values are short letters whose value is anything, the rest of the
	// cluster (-Sfoo, -efoo, -L1,5:a.go): git reads no option in it.
	values string
	// counts allows -NUMBER (git log -5, git grep -3).
	counts bool
}

// allows reports whether the option t (it starts with a dash) is allowed.
func (g *gitAllow) allows(t string) bool {
	if g.words.has(t) {
		return true
	}
	if name, _, _ := strings.Cut(t, "="); strings.HasPrefix(t, "--") {
		// Given alone, the value is the next word, read as an argument
		// of its own: an option there must be allowed too.
		return g.valued.has(name)
	}
	body := t[1:]
	if g.counts && strings.Trim(body, "0123456789") == "" {
		return true
	}
	for j := 0; j < len(body); j++ {
		c := body[j]
		switch {
		case strings.IndexByte(g.flags, c) >= 0:
		case strings.IndexByte(g.numbers, c) >= 0:
			return strings.Trim(body[j+1:], "0123456789%/,.") == ""
		case strings.IndexByte(g.values, c) >= 0:
			return true
		case g.counts && c >= '0' && c <= '9':
			// -n3 is -n -3.
			return strings.Trim(body[j:], "0123456789") == ""
		default:
			return false
		}
	}
	return true
}

// wordSet is a set of words kept as the lists of words, each separated
// by single spaces, it was made of. Making it costs nothing, where maps
// made at every start (rein version included) took 90 KB and a tenth of
// a millisecond; asking is a search of a kilobyte at most.
type wordSet []string

// set makes a set of the words of lists.
func set(lists ...string) wordSet { return lists }

// has reports whether w is one of the set's words.
func (s wordSet) has(w string) bool {
	if w == "" || strings.IndexByte(w, ' ') >= 0 {
		return false // a quoted "--stat -p" is one word, and no option
	}
	for _, l := range s {
		for i := 0; i+len(w) <= len(l); {
			j := strings.Index(l[i:], w)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(w)
			if (start == 0 || l[start-1] == ' ') && (end == len(l) || l[end] == ' ') {
				return true
			}
			i = start + 1
		}
	}
	return false
}

// The options of git's diff machinery (git diff, log, show) that only
// change what is shown. Left out: --output and -O (an order file), which
// write and read elsewhere; --ext-diff and --textconv, which run what the
// configuration names (textconv runs by default in porcelain, which is
// why the policy reads the repository's configuration); --no-index.
const (
	gitDiffWords = "-p -u -s -z -R -a -b -w -W -D -B -M -C --patch --no-patch --raw --patch-with-raw --patch-with-stat " +
		"--stat --numstat --shortstat --dirstat --cumulative --dirstat-by-file --compact-summary --summary --name-only " +
		"--name-status --check --full-index --binary --abbrev --no-abbrev --find-renames --find-copies " +
		"--find-copies-harder --no-renames --rename-empty --no-rename-empty --irreversible-delete --relative " +
		"--no-relative --text --ignore-space-at-eol --ignore-space-change --ignore-all-space --ignore-blank-lines " +
		"--ignore-cr-at-eol --function-context --color --no-color --color-words --word-diff --color-moved " +
		"--no-color-moved --color-moved-ws --no-color-moved-ws --minimal --patience --histogram --indent-heuristic " +
		"--no-indent-heuristic --no-textconv --no-ext-diff --exit-code --quiet --no-prefix --default-prefix " +
		"--ita-invisible-in-index --ita-visible-in-index --ignore-submodules --submodule --pickaxe-all --pickaxe-regex " +
		"--break-rewrites"
	gitDiffValued = "--stat --dirstat --abbrev --find-renames --find-copies --relative --color --color-words --word-diff " +
		"--word-diff-regex --color-moved --color-moved-ws --unified --inter-hunk-context --diff-algorithm --anchored " +
		"--diff-filter --src-prefix --dst-prefix --line-prefix --ignore-submodules --submodule --break-rewrites " +
		"--stat-width --stat-name-width --stat-count --stat-graph-width --ws-error-highlight --find-object " +
		"--ignore-matching-lines --skip-to --rotate-to --output-indicator-new --output-indicator-old " +
		"--output-indicator-context --dirstat-by-file"
	// The revision walk's options (git log, show, shortlog). Left out:
	// --show-signature (runs gpg.program), --stdin.
	gitLogWords = "-i -E -F -P -g -m -c -t --oneline --graph --decorate --no-decorate --all --branches --tags --remotes " +
		"--reflog --first-parent --merges --no-merges --reverse --topo-order --date-order --author-date-order " +
		"--left-right --left-only --right-only --cherry-pick --cherry-mark --cherry --boundary --abbrev-commit " +
		"--no-abbrev-commit --full-history --simplify-merges --simplify-by-decoration --ancestry-path --dense --sparse " +
		"--show-pulls --parents --children --log-size --relative-date --no-walk --do-walk --walk-reflogs --follow " +
		"--full-diff --notes --no-notes --show-notes --standard-notes --no-standard-notes --use-mailmap " +
		"--no-use-mailmap --mailmap --no-mailmap --source --not --remove-empty --no-min-parents --no-max-parents " +
		"--all-match --invert-grep --regexp-ignore-case --extended-regexp --fixed-strings --perl-regexp " +
		"--basic-regexp --single-worktree --bisect --ignore-missing --exclude-first-parent-only --show-linear-break " +
		"--expand-tabs --no-expand-tabs --clear-decorations --cc --dd --combined-all-paths --no-diff-merges " +
		"--remerge-diff --merge"
	gitLogValued = "--format --pretty --max-count --skip --since --after --until --before --since-as-filter --author " +
		"--committer --grep --grep-reflog --min-parents --max-parents --branches --tags --remotes --glob --exclude " +
		"--decorate --decorate-refs --decorate-refs-exclude --date --encoding --expand-tabs --notes --show-notes " +
		"--no-walk --diff-merges --exclude-hidden --ancestry-path"
)

// gitReaders are the subcommands of git that only read the repository,
// with what each may be given (git status refreshes the index's stat
// information, which changes nothing git shows). branch, tag and remote
// only list with the arguments of gitListing.
var gitReaders = map[string]*gitAllow{
	"diff": {words: set(gitDiffWords, "--cached --staged --merge-base"), valued: set(gitDiffValued),
		flags: "pusRabwWDz", numbers: "BMClU", values: "SGI"},
	"log": {words: set(gitDiffWords, gitLogWords), valued: set(gitDiffValued, gitLogValued),
		flags: "pusRabwWDziEFPgmct", numbers: "BMClUn", values: "SGIL", counts: true},
	"show": {words: set(gitDiffWords, gitLogWords), valued: set(gitDiffValued, gitLogValued),
		flags: "pusRabwWDziEFPgmct", numbers: "BMClUn", values: "SGIL", counts: true},
	"shortlog": {words: set(gitLogWords, "-n -s -e -c -w --numbered --summary --email --committer"),
		valued: set(gitLogValued, "--group"), flags: "nsec", numbers: "w", counts: true},
	"status": {words: set("-s -b -v -z -u --short --branch --show-stash --porcelain --long --verbose --untracked-files " +
		"--ignore-submodules --ignored --column --no-column --ahead-behind --no-ahead-behind --renames --no-renames " +
		"--find-renames"), valued: set("--porcelain --untracked-files --ignore-submodules --ignored --column --find-renames"),
		flags: "sbvz", values: "u"},
	// Left out: -S and --ignore-revs-file (a file of revisions, anywhere),
	// --contents (a file read in place of the working tree's).
	"blame": {words: set("-b -l -t -s -f -n -e -w -c -p -M -C --root --show-stats --show-name --show-number --show-email " +
		"--porcelain --line-porcelain --incremental --progress --no-progress --minimal --first-parent --color-lines " +
		"--color-by-age --abbrev --score-debug"), valued: set("--date --abbrev --since --encoding --ignore-rev"),
		flags: "bltsfnewcp", numbers: "MC", values: "L"},
	// Left out: -X and --exclude-from (a file of patterns, anywhere),
	// --exclude-per-directory, --with-tree.
	"ls-files": {words: set("-c -d -m -o -i -s -u -k -z -t -v -f --cached --deleted --modified --others --ignored --stage " +
		"--unmerged --killed --directory --no-empty-directory --eol --full-name --recurse-submodules --abbrev " +
		"--exclude-standard --error-unmatch --deduplicate --sparse --debug"), valued: set("--exclude --abbrev --format"),
		flags: "cdmoisukztvf", values: "x"},
	"ls-tree": {words: set("-d -r -t -l -z --long --name-only --name-status --object-only --full-name --full-tree --abbrev"),
		valued: set("--abbrev --format"), flags: "drtlz"},
	"rev-parse": {words: set("-q --show-toplevel --git-dir --absolute-git-dir --git-common-dir --is-inside-work-tree " +
		"--is-inside-git-dir --is-bare-repository --is-shallow-repository --abbrev-ref --short --verify --quiet " +
		"--symbolic --symbolic-full-name --show-prefix --show-cdup --show-superproject-working-tree --shared-index-path " +
		"--show-object-format --show-ref-format --all --branches --tags --remotes --revs-only --no-revs --flags " +
		"--no-flags --sq --not --default --local-env-vars --git-path"),
		valued: set("--short --abbrev-ref --branches --tags --remotes --glob --exclude --since --until --after --before " +
			"--default --path-format --show-object-format --disambiguate"), flags: "q"},
	"describe": {words: set("--all --tags --contains --long --always --first-parent --debug --exact-match --dirty --broken"),
		valued: set("--abbrev --candidates --match --exclude --dirty --broken")},
	// Left out: -O and --open-files-in-pager (run a pager), -f and --file
	// (patterns from a file, anywhere), --textconv, --no-index.
	"grep": {words: set("-a -i -I -r -w -v -h -H -E -G -P -F -n -l -L -z -o -c -p -W -q --text --no-textconv --ignore-case " +
		"--no-recursive --recursive --word-regexp --invert-match --full-name --extended-regexp --basic-regexp " +
		"--perl-regexp --fixed-strings --line-number --column --files-with-matches --name-only --files-without-match " +
		"--null --only-matching --count --color --no-color --break --heading --show-function --function-context " +
		"--and --or --not --all-match --quiet --cached --untracked --no-exclude-standard --exclude-standard " +
		"--recurse-submodules"), valued: set("--max-depth --color --context --after-context --before-context --max-count --threads"),
		flags: "aiIrwvhHEGPFnlLzocpWq", numbers: "ABCm", values: "e", counts: true},
	"branch": nil, "tag": nil, "remote": nil,
}

// gitListing are the arguments with which git branch, tag and remote only
// list.
var gitListing = map[string][]string{
	"branch": {"-a", "-r", "-v", "-vv", "-l", "--all", "--remotes", "--verbose", "--list", "--show-current", "--no-color"},
	"tag":    {"-l", "--list"},
	"remote": {"-v", "--verbose"},
}

// gitGlobalReaders are the options before git's subcommand that change
// nothing it runs or where it reads. -C, -c, --git-dir, --work-tree,
// --exec-path, --namespace and the rest are not: they choose another
// repository (whose configuration names programs) or what git runs.
var gitGlobalReaders = []string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
	"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--no-advice"}

// gitReadOnly reports whether git only reads the repository: a subcommand
// of gitReaders, no option before it but those of gitGlobalReaders, and
// none after it but those its allowlist names. Which repository it reads,
// and what that repository's configuration makes git run, is the
// caller's to judge: it reads the files, this package reads syntax.
func gitReadOnly(cw []Word) bool {
	for i := 1; i < len(cw); i++ {
		t := cw[i].Text
		switch {
		case !cw[i].Static():
			return false
		case slices.Contains(gitGlobalReaders, t):
		case strings.HasPrefix(t, "-"):
			return false
		default:
			return gitSubReadOnly(t, cw[i+1:])
		}
	}
	return false
}

func gitSubReadOnly(sub string, args []Word) bool {
	allow, ok := gitReaders[sub]
	if !ok {
		return false
	}
	if list, ok := gitListing[sub]; ok {
		for _, w := range args {
			if !w.Static() || !slices.Contains(list, w.Text) {
				return false
			}
		}
		return true
	}
	for _, w := range args {
		t := w.Text
		switch {
		case w.Kind != Literal:
			// An operand computed or expanded at run time: whether it can
			// be an option is mayBeOption's to say (git is strict).
		case t == "--":
			return true
		case !strings.HasPrefix(t, "-") || t == "-":
		case !allow.allows(t):
			return false
		}
	}
	return true
}
