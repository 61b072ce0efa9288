package shell

import (
	"strings"
)

// layout says what a file program's operands are.
type layout uint8

const (
	// eachRead: every operand is a file read (cat, head, wc).
	eachRead layout = iota
	// eachWrite: every operand is a file written (rm, touch, tee, mv).
	eachWrite
	// patternFirst: a pattern, unless an option gave it, then files read
	// (grep, rg).
	patternFirst
	// lastWrite: the last operand is written, the others read (cp,
	// install), unless an option names the target directory.
	lastWrite
	// inOut: an input read, then an output written (uniq, xxd).
	inOut
	// ownerFirst: an owner or group, then files written (chown, chgrp).
	ownerFirst
	// modes: modes and files written (chmod): a word that reads as a mode
	// is one.
	modes
	// noFiles: the operands are not files (shuf -e).
	noFiles
)

// filer describes a program whose operands and options name files it
// reads or writes. Option lists are letters, then a space and long names:
// "o output".
type filer struct {
	opts   *options
	layout layout
	// reads and writes are the options whose value is a file read or
	// written; target the option naming a directory the operands go into
	// (cp -t), which is written while the operands are only read.
	reads, writes, target string
	// tree lists the options that make it act on whole trees (rm -r).
	tree string
	// pattern lists the options that give the pattern (grep -e, -f).
	pattern string
	// links lists the options that make the sources written too: a hard
	// link to a file is that file (cp -l, cp -s).
	links string
	// literal lists the options after which the operands are not files
	// (shuf -e).
	literal string
	// cwd: with no file operand, it reads the directory it runs in (ls,
	// rg), given that tree is set when treeCwd is.
	cwd, treeCwd bool
	// recursive: it reads the whole tree below each operand (rg).
	recursive bool
}

// has reports whether a is one of the options in list.
func has(list string, a arg) bool {
	if a.opt == "" || list == "" {
		return false
	}
	short, long, _ := strings.Cut(list, " ")
	if a.long {
		for _, n := range strings.Fields(long) {
			if n == a.opt {
				return true
			}
		}
		return false
	}
	return strings.Contains(short, a.opt)
}

// worst is the strongest role the program can give a file.
func (f *filer) worst() Role {
	if f.writes != "" || f.target != "" || f.layout != eachRead && f.layout != patternFirst && f.layout != noFiles {
		return RoleWrite
	}
	return RoleRead
}

// files reads the arguments of the file program f.
func (f *filer) files(x *call) {
	var operands []int
	var tree, pattern, linked, target, literal bool
	tree = f.recursive
	f.opts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			// What the word holds is not known, and after it not even
			// which word is what: every one may be a file of either kind.
			x.filesFrom(a.i, f.worst())
			return false
		case a.opt == "":
			operands = append(operands, a.i)
			return true
		}
		switch {
		case !a.has:
		case has(f.reads, a):
			x.file(a.vi, a.val, RoleRead)
		case has(f.writes, a), has(f.target, a):
			x.file(a.vi, a.val, RoleWrite)
		}
		target = target || has(f.target, a) && a.has
		tree = tree || has(f.tree, a)
		pattern = pattern || has(f.pattern, a)
		linked = linked || has(f.links, a)
		literal = literal || has(f.literal, a)
		return true
	})
	if literal {
		return
	}
	f.operands(x, operands, tree, pattern, linked, target)
}

// operands records the files the operands at the indexes ops name.
func (f *filer) operands(x *call, ops []int, tree, pattern, linked, target bool) {
	add := func(i int, r Role) { x.addFile(i, x.cw[i], r, tree) }
	switch f.layout {
	case eachRead, eachWrite:
		r := RoleRead
		if f.layout == eachWrite {
			r = RoleWrite
		}
		for _, i := range ops {
			add(i, r)
		}
	case patternFirst:
		if !pattern && len(ops) > 0 {
			ops = ops[1:]
		}
		for _, i := range ops {
			add(i, RoleRead)
		}
	case lastWrite:
		for k, i := range ops {
			if linked || !target && k == len(ops)-1 {
				add(i, RoleWrite)
			} else {
				add(i, RoleRead)
			}
		}
	case inOut:
		for k, i := range ops {
			if k < 2 {
				add(i, []Role{RoleRead, RoleWrite}[k])
			}
		}
	case ownerFirst:
		for k, i := range ops {
			if k > 0 || target {
				add(i, RoleWrite)
			}
		}
	case modes:
		for _, i := range ops {
			if !isMode(x.cw[i]) || target {
				add(i, RoleWrite)
			}
		}
	}
	if len(ops) == 0 && f.cwd && (tree || !f.treeCwd) {
		x.addFile(0, Word{Text: "."}, RoleRead, tree)
	}
}

// isMode reports whether w reads as a chmod mode: octal digits, or
// symbolic clauses such as u+x,go-w.
func isMode(w Word) bool {
	if w.Kind != Literal || w.Text == "" {
		return false
	}
	for _, c := range w.Text {
		if !strings.ContainsRune("01234567ugoarwxXst+-=,", c) {
			return false
		}
	}
	return true
}

// Short option letters and long names that many programs share.
const (
	grepValued = "e:f:m:A:B:C:d:D:"
	grepLong   = "regexp: file: max-count: after-context: before-context: context: directories: devices: include: exclude: exclude-from: exclude-dir: label: color:: colour:: binary-files: " +
		"recursive dereference-recursive ignore-case no-ignore-case invert-match word-regexp line-regexp count files-with-matches files-without-match only-matching quiet silent " +
		"no-messages byte-offset with-filename no-filename line-number null null-data text extended-regexp fixed-strings basic-regexp perl-regexp initial-tab line-buffered help version"
)

// filers are the programs whose operands and options name files.
var filers = map[string]*filer{
	"cat":  {opts: opts("AbeEnstTuv", "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting help version")},
	"tac":  {opts: opts("brs:", "before regex separator: help version")},
	"nl":   {opts: opts("pb:d:f:h:i:l:n:s:v:w:", "body-numbering: section-delimiter: footer-numbering: header-numbering: line-increment: join-blank-lines: number-format: no-renumber number-separator: starting-line-number: number-width:")},
	"head": {opts: opts("c:n:qvz", "bytes: lines: quiet silent verbose zero-terminated help version")},
	"tail": {opts: opts("c:fFn:qs:vz", "bytes: follow:: lines: max-unchanged-stats: pid: quiet silent retry sleep-interval: verbose zero-terminated help version")},
	"less": {opts: opts("?aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWXb:h:j:k:o:O:p:P:t:T:x:y:z:#:D:", "log-file: LOG-FILE: lesskey-file: pattern: prompt: tag: tag-file: tabs:"),
		reads: "kT lesskey-file tag-file", writes: "oO log-file LOG-FILE"},
	"more":  {opts: opts("dflcpsun:", "silent logical no-pause print-over clean-print squeeze plain lines: help version")},
	"grep":  {opts: opts("rREFGPiyvwxclLoqsbHhnTZzUVa"+grepValued, grepLong), layout: patternFirst, reads: "f file exclude-from", pattern: "ef regexp file", tree: "rR recursive dereference-recursive", cwd: true, treeCwd: true},
	"egrep": {opts: opts("rRiyvwxclLoqsbHhnTZzUVa"+grepValued, grepLong), layout: patternFirst, reads: "f file exclude-from", pattern: "ef regexp file", tree: "rR recursive dereference-recursive", cwd: true, treeCwd: true},
	"fgrep": {opts: opts("rRiyvwxclLoqsbHhnTZzUVa"+grepValued, grepLong), layout: patternFirst, reads: "f file exclude-from", pattern: "ef regexp file", tree: "rR recursive dereference-recursive", cwd: true, treeCwd: true},
	"rg": {opts: opts("abcFHhiIJLlNnopqSsUuvwxz0"+"A:B:C:e:E:f:g:j:m:M:r:t:T:d:", "regexp: file: glob: iglob: type: type-not: type-add: after-context: before-context: context: max-count: max-columns: "+
		"replace: threads: encoding: max-depth: pre: pre-glob: ignore-file: hostname-bin: sort: sortr: colors: color: path-separator: context-separator: "+
		"field-match-separator: field-context-separator: max-filesize: dfa-size-limit: regex-size-limit: engine: hyperlink-format: files type-list help version"),
		layout: patternFirst, reads: "f file ignore-file", pattern: "ef regexp file files type-list", cwd: true, recursive: true},
	"wc":   {opts: opts("cmlLw", "bytes chars lines max-line-length words files0-from: total: help version"), reads: " files0-from"},
	"sort": {opts: opts("bdfgiMhnRrVcCmsuzk:t:S:T:o:", "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort random-source: reverse sort: version-sort batch-size: check:: compress-program: debug files0-from: key: merge output: stable buffer-size: field-separator: temporary-directory: parallel: unique zero-terminated help version"), reads: " random-source files0-from", writes: "oT output temporary-directory"},
	"uniq": {opts: opts("cdDiuzf:s:w:", "count repeated all-repeated:: skip-fields: group:: ignore-case skip-chars: unique zero-terminated check-chars: help version"), layout: inOut},
	"diff": {opts: opts("abBdeEfHiInNpPqrsStTuwyZlC:D:F:I:L:S:U:W:x:X:", "normal brief report-identical-files context:: unified:: ed rcs side-by-side width: left-column suppress-common-lines show-c-function show-function-line: label: expand-tabs initial-tab tabsize: suppress-blank-empty paginate recursive no-dereference new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case exclude: exclude-from: starting-file: from-file: to-file: ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines: text strip-trailing-cr ifdef: GTYPE-group-format: line-format: LTYPE-line-format: minimal horizon-lines: speed-large-files color:: palette: help version"),
		reads: "X exclude-from from-file to-file", tree: "r recursive"},
	"cmp": {opts: opts("bli:n:s", "print-bytes ignore-initial: verbose bytes: quiet silent help version")},
	"cp": {opts: opts("abdfHiLlnPpRrsuvxZS:t:T", "archive attributes-only backup:: copy-contents dereference force interactive link no-dereference no-clobber preserve:: no-preserve: parents recursive reflink:: remove-destination sparse: strip-trailing-slashes symbolic-link suffix: target-directory: no-target-directory update:: verbose one-file-system context:: help version"),
		layout: lastWrite, target: "t target-directory", tree: "aRr archive recursive", links: "ls link symbolic-link"},
	"mv":       {opts: opts("bfinuvZS:t:T", "backup:: force interactive no-clobber strip-trailing-slashes suffix: target-directory: no-target-directory update:: verbose context exchange no-copy help version"), layout: eachWrite, target: "t target-directory"},
	"ln":       {opts: opts("bdFfinLPrsvS:t:T", "backup:: directory force interactive logical no-dereference physical relative symbolic suffix: target-directory: no-target-directory verbose help version"), layout: eachWrite, target: "t target-directory"},
	"install":  {opts: opts("bcCdDpsvZg:m:o:S:t:T", "backup:: compare directory group: mode: owner: preserve-timestamps strip strip-program: suffix: target-directory: no-target-directory verbose preserve-context context:: help version"), layout: lastWrite, target: "t target-directory", links: "d directory"},
	"rm":       {opts: opts("dfiIrRv", "force interactive:: one-file-system no-preserve-root preserve-root:: recursive dir verbose help version"), layout: eachWrite, tree: "rR recursive"},
	"rmdir":    {opts: opts("pv", "ignore-fail-on-non-empty parents verbose help version"), layout: eachWrite},
	"unlink":   {opts: opts("", "help version"), layout: eachWrite},
	"shred":    {opts: opts("fn:s:uvxz", "force iterations: random-source: size: remove:: verbose exact zero help version"), layout: eachWrite, reads: " random-source"},
	"truncate": {opts: opts("cor:s:", "no-create io-blocks reference: size: help version"), layout: eachWrite, reads: "r reference"},
	"touch":    {opts: opts("acfhmd:r:t:", "no-create date: no-dereference reference: time: help version"), layout: eachWrite, reads: "r reference"},
	"mkdir":    {opts: opts("pvZm:", "mode: parents verbose context:: help version"), layout: eachWrite},
	"tee":      {opts: opts("aip", "append ignore-interrupts output-error:: help version"), layout: eachWrite},
	"chmod":    {opts: opts("cfvR", "changes silent quiet verbose no-preserve-root preserve-root reference: recursive help version"), layout: modes, reads: " reference", target: " reference", tree: "R recursive"},
	"chown":    {opts: opts("cfvhHLPR", "changes dereference no-dereference from: silent quiet no-preserve-root preserve-root reference: recursive verbose help version"), layout: ownerFirst, reads: " reference", target: " reference", tree: "R recursive"},
	"chgrp":    {opts: opts("cfvhHLPR", "changes dereference no-dereference silent quiet no-preserve-root preserve-root reference: recursive verbose help version"), layout: ownerFirst, reads: " reference", target: " reference", tree: "R recursive"},
	"file":     {opts: opts("bcCdEhiklLNnprsSvzZ0e:f:F:m:P:", "brief checking-printout compile exclude: exclude-quiet: files-from: separator: mime mime-type mime-encoding keep-going list dereference magic-file: no-dereference no-pad no-buffer preserve-date parameter: raw special-files uncompress uncompress-noreport print0 help version"), reads: "fm files-from magic-file"},
	"stat":     {opts: opts("fLtc:", "dereference file-system format: printf: terse cached: help version")},
	"xxd":      {opts: opts("abCdeEhiprRuvc:g:l:n:o:s:", ""), layout: inOut},
	"od":       {opts: opts("bcdfiloqsvxA:j:N:S::t:w::", "address-radix: endian: skip-bytes: read-bytes: strings:: format: output-duplicates width:: traditional help version")},
	"hexdump":  {opts: opts("bcCdovxe:f:n:s:L::", "one-byte-octal one-byte-char canonical two-bytes-decimal two-bytes-octal no-squeezing two-bytes-hex format: format-file: length: skip: color:: help version"), reads: "f format-file"},
	"base64":   {opts: opts("diw:", "decode ignore-garbage wrap: help version")},
	"base32":   {opts: opts("diw:", "decode ignore-garbage wrap: help version")},
	"strings":  {opts: opts("adfhowvn:t:e:T:s:", "all data print-file-name bytes: radix: encoding: target: output-separator: include-all-whitespace unicode: help version")},
	"cut":      {opts: opts("nszb:c:d:f:", "bytes: characters: delimiter: fields: complement only-delimited output-delimiter: zero-terminated help version")},
	"paste":    {opts: opts("szd:", "delimiters: serial zero-terminated help version")},
	"comm":     {opts: opts("123iz", "check-order nocheck-order output-delimiter: total zero-terminated help version")},
	"join":     {opts: opts("iz1:2:a:e:j:o:t:v:", "ignore-case check-order nocheck-order header zero-terminated help version")},
	"fold":     {opts: opts("bsw:", "bytes spaces width: help version")},
	"fmt":      {opts: opts("csutg:p:w:", "crown-margin prefix: split-only tagged-paragraph uniform-spacing width: goal: help version")},
	"expand":   {opts: opts("it:", "initial tabs: help version")},
	"unexpand": {opts: opts("at:", "all first-only tabs: help version")},
	"rev":      {opts: opts("0", "zero help version")},
	"column":   {opts: opts("eJLnrtxc:d::E:H:l:N:o:O:R:s:T:W:", "table output-separator: separator: columns: table-name: table-columns: fillrows help version")},
	"shuf":     {opts: opts("erzi:n:o:", "echo input-range: head-count: output: random-source: repeat zero-terminated help version"), writes: "o output", reads: " random-source", literal: "ei echo input-range"},
	"iconv":    {opts: opts("clsf:t:o:", "from-code: to-code: output: list silent help version"), writes: "o output"},
	"readlink": {opts: opts("efmnqsvz", "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero help version")},
	"realpath": {opts: opts("eLmPqsz", "canonicalize-existing canonicalize-missing logical physical quiet relative-to: relative-base: strip no-symlinks zero help version"), reads: " relative-to relative-base"},
	"ls":       {opts: opts("aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1I:T:w:", "all almost-all author escape block-size: ignore-backups color:: directory dired classify:: file-type format: full-time group-directories-first no-group human-readable si dereference-command-line dereference-command-line-symlink-to-dir hide: hyperlink:: indicator-style: inode ignore: kibibytes dereference numeric-uid-gid literal hide-control-chars show-control-chars quote-name quoting-style: reverse recursive size sort: time: time-style: tabsize: width: context zero help version"), tree: "R recursive", cwd: true},
	"du":       {opts: opts("0abcDhHklLmPsSxB:d:t:X:", "null all apparent-size block-size: bytes total dereference-args human-readable inodes dereference count-links max-depth: no-dereference separate-dirs si summarize threshold: time:: time-style: exclude-from: exclude: one-file-system files0-from: help version"), reads: "X exclude-from files0-from", cwd: true},
	"df":       {opts: opts("ahHiklPTvB:t:x:", "all block-size: human-readable si inodes local no-sync output:: portability print-type sync total type: exclude-type: help version")},
	"tree":     {opts: opts("aAcCdDfFgilNpqrRstuvxJXo:L:P:I:H:T:", "noreport charset: filelimit: timefmt: sort: dirsfirst filesfirst prune si du help version"), writes: "o", cwd: true},
	"md5sum":   checksum, "sha1sum": checksum, "sha224sum": checksum, "sha256sum": checksum, "sha384sum": checksum,
	"sha512sum": checksum, "b2sum": checksum, "cksum": checksum, "sum": {opts: opts("rs", "sysv help version")},
	"date": {opts: opts("d:f:I::r:Rus:", "date: file: iso-8601:: rfc-3339: reference: rfc-email rfc-822 rfc-2822 universal utc debug resolution set: help version"),
		layout: noFiles, reads: "fr file reference"},
	"zcat": decompressor, "bzcat": decompressor, "xzcat": decompressor, "zstdcat": decompressor, "lz4cat": decompressor,
}

var checksum = &filer{opts: opts("bctwz", "binary check tag text ignore-missing quiet status strict warn zero help version")}
var decompressor = &filer{opts: opts("fhLqvV", "force help license quiet verbose version")}

// compressors replace their operands with compressed (or, with -d,
// decompressed) files, unless -c writes to standard output, or -l or -t
// only read them.
var compressors = map[string]bool{"gzip": true, "gunzip": true, "bzip2": true, "bunzip2": true, "xz": true, "unxz": true,
	"lzma": true, "unlzma": true, "zstd": true, "unzstd": true, "lz4": true, "compress": true, "uncompress": true, "pigz": true}

func compressor(x *call) {
	o := opts("123456789acdfhklLnNqrStTvVC:S:o:T:", "stdout to-stdout decompress uncompress force keep list license no-name name quiet recursive suffix: test verbose version output: threads: help")
	read := false
	o.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			return false
		case a.opt == "":
		case a.opt == "o" && a.has, a.long && a.opt == "output" && a.has:
			x.file(a.vi, a.val, RoleWrite)
		case strings.Contains("cltT", a.opt) && !a.long || a.long && (a.opt == "stdout" || a.opt == "to-stdout" || a.opt == "list" || a.opt == "test"):
			read = true
		}
		return true
	})
	r := RoleWrite
	if read {
		r = RoleRead
	}
	(&filer{opts: o, layout: eachRead}).scanAs(x, r)
}

// scanAs records every operand of the program as a file of role r (and
// every word from an unsure one on).
func (f *filer) scanAs(x *call, r Role) {
	f.opts.scan(x.cw, 1, false, func(a arg) bool {
		if a.unsure {
			x.filesFrom(a.i, RoleWrite)
			return false
		}
		if a.opt == "" {
			x.file(a.i, x.cw[a.i], r)
		}
		return true
	})
}

// dd reads if=FILE and writes of=FILE.
func dd(x *call) {
	for i := 1; i < len(x.cw); i++ {
		w := x.cw[i]
		text := w.Text
		if w.Kind == Dynamic {
			text = w.Prefix
		}
		switch {
		case strings.HasPrefix(text, "if="):
			x.file(i, valueWord(w, text[3:]), RoleRead)
		case strings.HasPrefix(text, "of="):
			x.file(i, valueWord(w, text[3:]), RoleWrite)
		case w.Kind == Dynamic:
			x.file(i, w, RoleWrite)
		}
	}
}

// jqProgram reads jq: a filter (unless -f gives it in a file), then files
// read; --arg and its kin take two words, --rawfile and --slurpfile a
// file; after --args or --jsonargs the operands are values, not files.
// jq finds each short option anywhere in a word that starts with one
// dash: -nf is -n and -f, whose file is the first operand (jq 1.7) or the
// word after it (jq 1.8); both are read. -L inside a cluster names a
// directory of modules the analysis cannot place.
func jqProgram(x *call) {
	cw := x.cw
	filter, fromFile := false, false
	for i := 1; i < len(cw); i++ {
		switch t := cw[i].Text; {
		case cw[i].Kind == Dynamic && (cw[i].Splits || strings.HasPrefix(cw[i].Prefix, "-") || cw[i].Prefix == ""):
			for ; i < len(cw); i++ {
				x.file(i, cw[i], RoleRead)
			}
			return
		case t == "--args" || t == "--jsonargs":
			return
		case t == "--arg" || t == "--argjson":
			i += 2
		case t == "--rawfile" || t == "--slurpfile":
			if i += 2; i < len(cw) {
				x.file(i, cw[i], RoleRead)
			}
		case t == "-L" || t == "--library-path":
			// A directory of modules, which import and include read.
			if i++; i < len(cw) {
				x.tree(i, cw[i], RoleRead)
			}
		case strings.HasPrefix(t, "-L") || strings.HasPrefix(t, "--library-path="):
			x.tree(i, valueWord(cw[i], strings.TrimPrefix(strings.TrimPrefix(t, "--library-path="), "-L")), RoleRead)
		case jqShort(t, 'L'):
			x.opaque("%s names a directory of jq modules inside a cluster of options, which cannot be told")
		case t == "-f" || t == "--from-file" || jqShort(t, 'f'):
			fromFile = true
			if !filter && i+1 < len(cw) && !strings.HasPrefix(cw[i+1].Text, "-") {
				i++
				x.file(i, cw[i], RoleRead)
				filter = true
			}
		case t == "--indent":
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		case !filter:
			filter = true
			if fromFile {
				x.file(i, cw[i], RoleRead)
			}
		default:
			x.file(i, cw[i], RoleRead)
		}
	}
}

// jqShort reports whether t is a cluster of jq's short options that holds
// the letter c.
func jqShort(t string, c byte) bool {
	return len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.IndexByte(t[1:], c) >= 0
}

// patchProgram reads patch: it writes the files its patch names, which are
// known only when it runs, unless it only tries (--dry-run).
func patchProgram(x *call) {
	o := opts("bcEeflnNRstuvZB:d:D:F:g:i:o:p:r:V:Y:z:", "dry-run input: output: directory: reject-file: prefix: backup basename-prefix: suffix: help version")
	dry := false
	o.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			return false
		case a.long && a.opt == "dry-run":
			dry = true
		case a.has && (a.opt == "i" || a.opt == "input"):
			x.file(a.vi, a.val, RoleRead)
		case a.has && (a.opt == "o" || a.opt == "output" || a.opt == "r" || a.opt == "reject-file" || a.opt == "B" || a.opt == "prefix"):
			x.file(a.vi, a.val, RoleWrite)
		case a.opt == "d" || a.opt == "directory":
			x.move()
		}
		return true
	})
	if !dry {
		x.file(0, Word{Kind: Dynamic}, RoleWrite)
	}
}

// mktempProgram reads mktemp: a file made under a directory given (-p,
// --tmpdir, a template with a directory) is written there; one made in
// the temporary directory is of no concern.
func mktempProgram(x *call) {
	o := opts("dqtuVp:", "directory dry-run quiet suffix: tmpdir:: help version")
	o.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			return false
		case a.has && (a.opt == "p" || a.opt == "tmpdir"):
			x.file(a.vi, a.val, RoleWrite)
		case a.opt == "" && strings.Contains(x.cw[a.i].Text, "/"):
			x.file(a.i, x.cw[a.i], RoleWrite)
		}
		return true
	})
}

// lessOperands makes less's +commands opaque: a command given with + is
// any of less's, !shell included.
func lessProgram(x *call) {
	for _, w := range x.cw[1:] {
		if !w.Static() || strings.HasPrefix(w.Text, "+") {
			x.opaque("%s gives less commands to run, which cannot be checked")
			break
		}
	}
	filers["less"].files(x)
}
