package markdown

import (
	"strings"
	"sync"
)

// syntax is what the highlighter knows of a language: enough to colour
// keywords, strings, comments and numbers, never to parse it.
type syntax struct {
	keywords map[string]bool
	// comment starts a comment to the end of the line ("//", "#").
	comment []string
	// blockOpen and blockClose bound a comment that may span lines.
	blockOpen, blockClose string
	// quotes are the characters that delimit a one-line string.
	quotes string
	// multi are the delimiters of strings that may span lines (a Go raw
	// string, a Python triple-quoted one), each closed by itself.
	multi []string
	// keys marks a JSON or YAML key as a keyword.
	keys bool
	yaml bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// cLike are the keywords the C family shares.
const cLike = "break case continue default do else for goto if return switch while "

// langs are the languages highlighted, made on first use: a program
// that shows no code pays nothing for them at start-up.
var langs = sync.OnceValue(func() map[string]*syntax {
	return map[string]*syntax{
		"go": {keywords: words("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota"),
			comment: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: `"'`, multi: []string{"`"}},
		"python": {keywords: words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self"),
			comment: []string{"#"}, quotes: `"'`, multi: []string{`"""`, `'''`}},
		"js": {keywords: words("async await break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield interface type enum implements private public protected readonly as declare namespace"),
			comment: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: `"'`, multi: []string{"`"}},
		"rust": {keywords: words("as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err"),
			comment: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: `"`},
		"c": {keywords: words(cLike + "auto bool char class const delete double enum extern false final float int long namespace new nullptr private protected public register short signed sizeof static struct template this throw throws true try catch typedef typename union unsigned using virtual void volatile import package extends implements interface boolean byte null super synchronized abstract instanceof #include #define #ifdef #ifndef #endif #if #else #pragma"),
			comment: []string{"//"}, blockOpen: "/*", blockClose: "*/", quotes: `"'`},
		"sh": {keywords: words("if then else elif fi case esac for while until do done in function return local export readonly declare unset set shift exit break continue echo cd source alias"),
			comment: []string{"#"}, quotes: `"'`},
		"json": {keywords: words("true false null"), quotes: `"`, keys: true},
		"yaml": {keywords: words("true false null yes no on off ~"), comment: []string{"#"}, quotes: `"'`, keys: true, yaml: true},
	}
})

// langAlias maps the other names of a fence's language to those of
// langs.
var langAlias = map[string]string{
	"golang": "go", "py": "python", "python3": "python", "javascript": "js", "jsx": "js", "ts": "js",
	"typescript": "js", "tsx": "js", "mjs": "js", "cjs": "js", "rs": "rust", "h": "c", "cpp": "c",
	"c++": "c", "cc": "c", "cxx": "c", "hpp": "c", "java": "c", "cs": "c", "csharp": "c",
	"bash": "sh", "shell": "sh", "zsh": "sh", "console": "sh", "shellscript": "sh", "jsonc": "json",
	"yml": "yaml",
}

// highlighter marks the tokens of a code block line by line, carrying a
// comment or string that spans lines from one to the next.
type highlighter struct {
	syn   *syntax
	close string // the delimiter that ends the comment or string open
	openM mark
}

// newHighlighter returns the highlighter of lang; one of an unknown
// language marks everything plain code.
func newHighlighter(lang string) *highlighter {
	lang = strings.ToLower(lang)
	if a, ok := langAlias[lang]; ok {
		lang = a
	}
	return &highlighter{syn: langs()[lang]}
}

// line returns the tokens of one line.
func (h *highlighter) line(l string) []seg {
	if h.syn == nil {
		return []seg{{l, mCodeBlock}}
	}
	var out []seg
	i := 0
	if h.close != "" {
		i = h.continueOpen(l, &out)
	} else if h.syn.yaml {
		i = h.yamlKey(l, &out)
	}
	plain := i
	emit := func(end int, m mark) {
		if plain < i {
			out = append(out, seg{l[plain:i], mCodeBlock})
		}
		out = append(out, seg{l[i:end], m})
		i, plain = end, end
	}
	for i < len(l) {
		if end, m, ok := h.token(l, i); ok {
			emit(end, m)
			continue
		}
		i++
	}
	if plain < len(l) {
		out = append(out, seg{l[plain:], mCodeBlock})
	}
	return out
}

// continueOpen marks the part of l that a comment or string left open by
// an earlier line covers, and returns where it ends.
func (h *highlighter) continueOpen(l string, out *[]seg) int {
	j := strings.Index(l, h.close)
	if j < 0 {
		*out = append(*out, seg{l, h.openM})
		return len(l)
	}
	end := j + len(h.close)
	*out = append(*out, seg{l[:end], h.openM})
	h.close = ""
	return end
}

// token reports the token that begins at l[i], if one does, and where it
// ends. A comment or string it opens and l does not close stays open.
func (h *highlighter) token(l string, i int) (int, mark, bool) {
	syn := h.syn
	c := l[i]
	prevIdent := i > 0 && isIdent(l[i-1])
	for _, p := range syn.comment {
		if strings.HasPrefix(l[i:], p) && (p != "#" || i == 0 || l[i-1] == ' ' || l[i-1] == '\t') {
			return len(l), mComment, true
		}
	}
	if syn.blockOpen != "" && strings.HasPrefix(l[i:], syn.blockOpen) {
		return h.spanning(l, i, syn.blockOpen, syn.blockClose, mComment), mComment, true
	}
	for _, d := range syn.multi {
		if strings.HasPrefix(l[i:], d) {
			return h.spanning(l, i, d, d, mString), mString, true
		}
	}
	if strings.IndexByte(syn.quotes, c) >= 0 {
		end := quoted(l, i)
		if syn.keys && strings.HasPrefix(strings.TrimLeft(l[end:], " "), ":") {
			return end, mKeyword, true
		}
		return end, mString, true
	}
	if c >= '0' && c <= '9' && !prevIdent {
		j := i + 1
		for j < len(l) && (isIdent(l[j]) || l[j] == '.') {
			j++
		}
		return j, mNumber, true
	}
	if isIdentStart(c) && !prevIdent {
		j := i + 1
		for j < len(l) && isIdent(l[j]) {
			j++
		}
		if syn.keywords[l[i:j]] {
			return j, mKeyword, true
		}
		return j, mCodeBlock, true
	}
	return 0, 0, false
}

// spanning returns where the comment or string opened by open at l[i]
// ends on l; when it does not, it stays open for the next lines.
func (h *highlighter) spanning(l string, i int, open, close string, m mark) int {
	j := strings.Index(l[i+len(open):], close)
	if j < 0 {
		h.close, h.openM = close, m
		return len(l)
	}
	return i + len(open) + j + len(close)
}

// quoted returns where the string quoted at l[i] ends: after its closing
// quote, a backslash escaping the next character, or at the line's end.
func quoted(l string, i int) int {
	q := l[i]
	for j := i + 1; j < len(l); j++ {
		switch l[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(l)
}

// yamlKey marks the key a YAML line begins with ("  - name:"), if any,
// and returns where it ends.
func (h *highlighter) yamlKey(l string, out *[]seg) int {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '-') {
		i++
	}
	if i < len(l) && (l[i] == '#' || l[i] == '"' || l[i] == '\'') {
		return 0
	}
	j := strings.Index(l[i:], ":")
	if j <= 0 || (i+j+1 < len(l) && l[i+j+1] != ' ') || strings.ContainsAny(l[i:i+j], "#{}[],") {
		return 0
	}
	if i > 0 {
		*out = append(*out, seg{l[:i], mCodeBlock})
	}
	*out = append(*out, seg{l[i : i+j], mKeyword})
	return i + j
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '#' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdent(c byte) bool {
	return isIdentStart(c) && c != '#' || c >= '0' && c <= '9'
}
