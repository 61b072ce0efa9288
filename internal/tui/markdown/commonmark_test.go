package markdown

import (
	"encoding/json"
	"html"
	"os"
	"strings"
	"testing"
	"unicode"
)

// specExample is one example of the CommonMark spec, as
// testdata/commonmark/spec.json holds it (see the README there).
type specExample struct {
	Example  int    `json:"example"`
	Section  string `json:"section"`
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
}

func loadSpec(t testing.TB) []specExample {
	t.Helper()
	data, err := os.ReadFile("testdata/commonmark/spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex []specExample
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatalf("testdata/commonmark/spec.json: %v", err)
	}
	return ex
}

// lostText lists the spec's examples whose text this renderer does not
// keep, each with the reason it is allowed to.
var lostText = map[int]string{
	// "![[[foo](uri1)](uri2)](uri3)": the HTML's alt text is
	// "[foo](uri2)"; the rendering shows "[image: [foo (uri1)](uri2)]",
	// the inner link's URL inside it. Nothing is lost, but the alt's one
	// word is cut in two.
	520: "the inner link's URL shown inside the image's description",
	// "*[foo*][ref]" then, in another block, "[ref]: /uri". The first
	// block is printed before the definition arrives, so it is read as
	// CommonMark reads an undefined reference: "[foo*][ref]" stays as
	// written and its asterisks make emphasis. The definition, needed,
	// is shown ("[ref]: /uri"), so the URL is kept; the two asterisks,
	// the HTML's text, are not.
	534: "a reference defined in a later block: its asterisks taken as emphasis",
	535: "a reference defined in a later block: its asterisks taken as emphasis",
}

// TestCommonMarkTextSurvives renders each example of the CommonMark spec,
// at 40 and at 80 columns in the plain theme, and checks that the text
// of the HTML the spec expects survives in what a person sees. The
// renderer draws for a terminal, not HTML, so the check is on text, not
// on structure:
//
//   - The expected text is the HTML's text content (outside tags and
//     comments, its character references decoded), an image's alt text,
//     and the URL of each link (href) and image (src).
//   - The text survives when its words (split at white space) are found
//     in the rendering in the same order, and each URL is found anywhere
//     in it (the renderer shows a link's URL after its text).
//   - Both sides are compared without white space (wrapping, indents
//     and a code line cut at the width, with its "↩" mark, do not
//     count) and with their %XX escapes decoded (the HTML percent-encodes
//     a URL that the rendering shows as written).
//
// Extra text (markup the renderer shows as written, a definition kept
// visible) does not count against it.
func TestCommonMarkTextSurvives(t *testing.T) {
	kept := 0
	examples := loadSpec(t)
	for _, ex := range examples {
		// At 40 and 80 columns: what is cut or wrapped differs.
		out := Render(ex.Markdown, 40, plain)
		missing := missingText(ex.HTML, out)
		if missing == "" {
			out = Render(ex.Markdown, 80, plain)
			missing = missingText(ex.HTML, out)
		}
		reason, excused := lostText[ex.Example]
		switch {
		case missing == "":
			kept++
			if excused {
				t.Errorf("example %d (%s) keeps its text now: remove it from lostText", ex.Example, ex.Section)
			}
		case excused:
			t.Logf("example %d (%s) loses %q, as allowed: %s", ex.Example, ex.Section, missing, reason)
		default:
			t.Errorf("example %d (%s): %q is lost\nmarkdown: %q\nrendered:\n%s", ex.Example, ex.Section, missing, ex.Markdown, out)
		}
	}
	t.Logf("%d of %d examples keep their text", kept, len(examples))
}

// missingText returns the first word or URL of the text of the HTML h
// that out lacks (as TestCommonMarkTextSurvives says), "" if none.
func missingText(h, out string) string {
	words, urls := htmlText(h)
	got := squeeze(strings.ReplaceAll(out, contMark+"\n", ""))
	at := 0
	for _, w := range words {
		i := strings.Index(got[at:], squeeze(w))
		if i < 0 {
			return w
		}
		at += i + len(squeeze(w))
	}
	for _, u := range urls {
		if !hasURL(got, u) {
			return u
		}
	}
	return ""
}

// hasURL reports whether got, squeezed, shows the URL u, an attribute's
// value as written in the HTML: decoded (a link's destination), as
// written (the attribute of raw HTML, shown as it is), or without the
// "mailto:" an email autolink's HTML adds.
func hasURL(got, u string) bool {
	d := html.UnescapeString(u)
	for _, s := range []string{d, u, strings.TrimPrefix(d, "mailto:")} {
		if s := squeeze(s); s == "" || strings.Contains(got, s) {
			return true
		}
	}
	return false
}

// squeeze returns s with its %XX escapes decoded and without white space.
func squeeze(s string) string {
	s = percentDecode(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// percentDecode decodes the valid %XX escapes of s, leaving the rest.
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// htmlText returns the words of the text of h, HTML as the spec's
// reference renderer writes it (its alt texts among them), and the URLs
// it links to. Comments, processing instructions, declarations and CDATA
// (raw HTML passed through) hold no text; neither do other attributes
// (a title, a code block's language class).
func htmlText(h string) (words, urls []string) {
	var text strings.Builder
	for h != "" {
		i := strings.IndexByte(h, '<')
		if i < 0 {
			text.WriteString(h)
			break
		}
		text.WriteString(h[:i])
		h = h[i:]
		n := htmlTag(h, nil)
		if n == 0 {
			text.WriteByte('<') // not a tag: written as text
			h = h[1:]
			continue
		}
		tag := h[:n]
		h = h[n:]
		// A tag ends a word: the renderer may mark where an element
		// begins or ends (a code span's backticks in the plain theme).
		text.WriteByte(' ')
		if tag[1] == '!' || tag[1] == '?' || tag[1] == '/' {
			continue
		}
		attrs := tagAttrs(tag)
		for _, name := range []string{"href", "src"} {
			if v, ok := attrs[name]; ok {
				urls = append(urls, v)
			}
		}
		if v, ok := attrs["alt"]; ok {
			text.WriteString(v + " ")
		}
	}
	words = strings.FieldsFunc(html.UnescapeString(text.String()), unicode.IsSpace)
	return words, urls
}

// tagAttrs returns the attributes of an open tag, by lower-case name,
// their values as written (character references not decoded).
func tagAttrs(tag string) map[string]string {
	attrs := map[string]string{}
	i := tagName(tag, 1)
	for {
		j := skipSpace(tag, i)
		k := attribute(tag, j, nil)
		if k == j {
			return attrs
		}
		name, value, _ := strings.Cut(tag[j:k], "=")
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') {
			value = value[1 : len(value)-1]
		}
		attrs[strings.ToLower(strings.TrimSpace(name))] = value
		i = k
	}
}
