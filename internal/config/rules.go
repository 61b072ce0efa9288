package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
)

// ProjectFile is where a project keeps its configuration, relative to the
// project's directory.
const ProjectFile = ".rein/config.toml"

// lists names the rule list of each decision in the [permissions] table.
var lists = map[contract.Decision]string{contract.Allow: "allow", contract.Ask: "ask", contract.Deny: "deny"}

// saveRuleIn adds r to list in the table at the key path table of file,
// creating the file and its directory when missing (a new file gets mode
// perm). A rule already in the list is not added twice. The rest of the
// file is kept byte for byte: the rule is inserted into the text, and the
// result is checked by decoding it again. Only when the table is written
// in a form that the edit does not handle (an inline table, dotted keys)
// is the file re-encoded from its decoded values, which keeps every value
// but not the comments or the order of keys. A file that is not valid
// TOML is left alone and reported. A link is followed: the file it points
// to gets the rule, with its mode kept. The read, the change and the write
// are made under an exclusive lock on file+".lock" (see lockBeside), so
// that two reins saving at once both keep their rule.
func saveRuleIn(file string, table []string, list string, r permission.Rule, perm os.FileMode) error {
	if err := atomicfile.MkdirAll(filepath.Dir(file), 0o755); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return fmt.Errorf("config: save rule: %w", err)
	}
	// Another rein may be saving an answer too: each reads what the one
	// before it wrote, or one's rule would be lost.
	unlock, err := lockBeside(file)
	if err != nil {
		return err
	}
	defer unlock()
	src, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: save rule: %w", err)
	}
	out, changed, err := addRule(string(src), table, list, r)
	if err != nil {
		if errors.Is(err, errNotTOML) {
			return fmt.Errorf("%w; rein saves nothing into a file it cannot read, so that nothing in it is lost: "+
				"fix the file or delete it", tomlError(file, string(src), errors.Unwrap(err)))
		}
		return fmt.Errorf("config: %s: %w", file, err)
	}
	if !changed {
		return nil
	}
	// A link to a shared file is followed: the shared file gets the rule.
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	// A write that only could not be made durable has saved the rule.
	if err := atomicfile.Write(file, []byte(out), perm); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return fmt.Errorf("config: save rule: %w", err)
	}
	return nil
}

// errNotTOML wraps the decoder's error for a file that is not valid TOML.
var errNotTOML = errors.New("not valid TOML")

// notTOML is the error of a file that is not valid TOML: the decoder's,
// which errors.Is matches with errNotTOML.
type notTOML struct{ err error }

// Error returns the decoder's message.
func (e *notTOML) Error() string { return e.err.Error() }

// Is reports whether target is errNotTOML.
func (e *notTOML) Is(target error) bool { return target == errNotTOML }

// Unwrap returns the decoder's error.
func (e *notTOML) Unwrap() error { return e.err }

// addRule returns src with r added to list in the table at the key path
// table ([permissions], or [projects."/dir".permissions]), and whether
// that changed anything.
func addRule(src string, table []string, list string, r permission.Rule) (string, bool, error) {
	doc, err := decodeMap(src)
	if err != nil {
		return "", false, &notTOML{err}
	}
	name := tableName(table)
	t, hasTable, err := lookupTable(doc, table)
	if err != nil {
		return "", false, err
	}
	var current []any
	if v, ok := t[list]; ok {
		current, ok = v.([]any)
		if !ok {
			return "", false, fmt.Errorf("%s.%s is not a list; want %s = [\"bash(go test:*)\", ...]", name, list, list)
		}
	}
	text := r.String()
	for _, v := range current {
		s, ok := v.(string)
		if !ok {
			return "", false, fmt.Errorf("%s.%s holds %v, which is not a string", name, list, v)
		}
		if o, err := permission.ParseRule(s); s == text || err == nil && o.Equal(r) {
			return src, false, nil
		}
	}
	// What the file must decode to afterwards.
	want, _ := decodeMap(src)
	wantTable := want
	for _, k := range table {
		next, ok := wantTable[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			wantTable[k] = next
		}
		wantTable = next
	}
	wantTable[list] = append(append([]any(nil), current...), text)

	if out, ok := editPermissions(src, table, list, text, hasTable); ok {
		if got, err := decodeMap(out); err == nil && reflect.DeepEqual(got, want) {
			return out, true, nil
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(want); err != nil {
		return "", false, fmt.Errorf("encode: %w", err)
	}
	return buf.String(), true, nil
}

// lookupTable returns the table at the key path table of doc (empty when
// it is not there), and whether it is.
func lookupTable(doc map[string]any, table []string) (map[string]any, bool, error) {
	t := doc
	for i, k := range table {
		v, ok := t[k]
		if !ok {
			return map[string]any{}, false, nil
		}
		next, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s is not a table; want [%s] with allow, ask and deny lists", tableName(table[:i+1]), tableName(table))
		}
		t = next
	}
	return t, true, nil
}

// tableName writes a key path as TOML does: permissions,
// projects."/home/me/app".permissions.
func tableName(table []string) string {
	parts := make([]string, len(table))
	for i, k := range table {
		parts[i] = tomlKey(k)
	}
	return strings.Join(parts, ".")
}

// tomlKey quotes k as a TOML key when it is not a bare one.
func tomlKey(k string) string {
	for i := 0; i < len(k); i++ {
		if !isBare(k[i]) {
			return tomlString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func decodeMap(src string) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.Decode(src, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// editPermissions inserts rule into the text of list in the table at the
// key path table of src, keeping every other byte. ok is false when the
// layout is not one it handles.
func editPermissions(src string, table []string, list, rule string, hasTable bool) (string, bool) {
	doc, err := scanTOML(src)
	if err != nil {
		return "", false
	}
	q := tomlString(rule)
	nl := "\n"
	if strings.Contains(src, "\r\n") {
		nl = "\r\n"
	}
	h := -1
	for i, hd := range doc.headers {
		if !hd.array && slices.Equal(hd.key, table) {
			h = i
			break
		}
	}
	if h < 0 {
		if hasTable {
			// Defined by dotted keys or inline: not a layout to edit.
			return "", false
		}
		out := src
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += nl
		}
		if strings.TrimSpace(out) != "" {
			out += nl
		}
		return out + "[" + tableName(table) + "]" + nl + list + " = [" + q + "]" + nl, true
	}
	var last *keyval
	for i := range doc.keyvals {
		kv := &doc.keyvals[i]
		if kv.section != h {
			continue
		}
		if len(kv.key) == 1 && kv.key[0] == list {
			return insertElement(src, kv, q, nl)
		}
		if len(kv.key) > 1 && kv.key[0] == list {
			return "", false
		}
		last = kv
	}
	at := doc.headers[h].lineEnd
	if last != nil {
		at = last.lineEnd
	}
	prefix := src[:at]
	if !strings.HasSuffix(prefix, "\n") {
		prefix += nl
	}
	return prefix + list + " = [" + q + "]" + nl + src[at:], true
}

// insertElement appends q to the array value of kv, in the array's style.
func insertElement(src string, kv *keyval, q, nl string) (string, bool) {
	if src[kv.valStart] != '[' {
		return "", false
	}
	sc := &scanner{s: src, i: kv.valStart}
	arr, err := sc.array()
	if err != nil {
		return "", false
	}
	if len(arr.elems) == 0 {
		return src[:arr.open+1] + q + src[arr.open+1:], true
	}
	lastElem := arr.elems[len(arr.elems)-1]
	after := lastElem[1]
	if arr.trailingComma {
		after = arr.commaAt + 1
	}
	eol := strings.IndexByte(src[after:arr.close], '\n')
	if eol < 0 {
		// The closing bracket is on the last element's line.
		if arr.trailingComma {
			return src[:after] + " " + q + src[after:], true
		}
		return src[:after] + ", " + q + src[after:], true
	}
	lineEnd := after + eol
	if src[lineEnd-1] == '\r' {
		lineEnd--
	}
	lineStart := strings.LastIndexByte(src[:lastElem[0]], '\n') + 1
	indent := src[lineStart:lastElem[0]]
	if strings.TrimLeft(indent, " \t") != "" {
		indent = "  "
	}
	if arr.trailingComma {
		return src[:lineEnd] + nl + indent + q + "," + src[lineEnd:], true
	}
	return src[:lastElem[1]] + "," + src[lastElem[1]:lineEnd] + nl + indent + q + src[lineEnd:], true
}

// tomlString quotes s as a TOML string: a basic string, or a literal one
// when s has quotes or backslashes but nothing a literal string cannot hold.
func tomlString(s string) string {
	control := strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
	if strings.ContainsAny(s, "\"\\") && !strings.ContainsRune(s, '\'') && !control {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
