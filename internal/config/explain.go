package config

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// This file says where things are in a configuration file, and what is
// wrong with a value of the wrong type, in rein's words rather than the
// TOML decoder's: the file, the line, the key, what was found and what is
// wanted ("config.toml:4: max_turns is "eighty" (a string); it wants a
// whole number").

// keyAt says where the key at path is set in the file: "file:line" of its
// key = value line or of its [table] header, else of the nearest key above
// it (an inline table's key), else the file alone.
func (d *decoded) keyAt(path ...string) string {
	line, _ := d.locate(path)
	return where(d.path, line)
}

// locate returns the line of the key at path (or of the nearest key
// above it that the file writes on a line of its own) and the text of its
// value, "" for a table; 0 and "" when not found.
func (d *decoded) locate(path []string) (int, string) {
	doc, err := scanTOML(d.text)
	if err != nil {
		if len(path) == 1 {
			return keyLine(d.text, path[0]), ""
		}
		return 0, ""
	}
	line := func(offset int) int { return strings.Count(d.text[:offset], "\n") + 1 }
	for n := len(path); n > 0; n-- {
		p := path[:n]
		for _, kv := range doc.keyvals {
			full := kv.key
			if kv.section >= 0 {
				full = slices.Concat(doc.headers[kv.section].key, kv.key)
			}
			if slices.Equal(full, p) {
				value := ""
				if n == len(path) {
					value = d.text[kv.valStart:kv.valEnd]
				}
				return line(kv.start), value
			}
		}
		for _, h := range doc.headers {
			if slices.Equal(h.key, p) {
				return line(h.start), ""
			}
		}
	}
	return 0, ""
}

// wrongType is a value of the wrong type: its key, the value found (for a
// list whose element is wrong, that element too), and what is wanted.
type wrongType struct {
	key   []string
	value any
	elem  any
	want  string
}

// badType is a value of the wrong type as the file writes it: what is
// wrong, the line of its key and the text of its value ("" when unknown).
type badType struct {
	wrongType
	line int
	text string
}

// wrongTypes returns the values of the file whose type is not what rein
// wants, in the order of their lines (then of their keys). raw is the file
// decoded without a destination, so that every value keeps its TOML type.
func (d *decoded) wrongTypes(raw map[string]any) []badType {
	var found []wrongType
	typesOf(raw, reflect.TypeFor[File](), nil, &found)
	all := make([]badType, 0, len(found))
	for _, w := range found {
		line, text := d.locate(w.key)
		all = append(all, badType{w, line, text})
	}
	// sort.Slice rather than slices.SortFunc, here and for the servers
	// (mcp.go): a sort of a struct type is a copy of pdqsort of its own in
	// the binary (15 and 21 KB), for a few values sorted once.
	sort.Slice(all, func(i, j int) bool {
		a, b := &all[i], &all[j]
		if a.line != b.line {
			return a.line < b.line
		}
		return toml.Key(a.key).String() < toml.Key(b.key).String()
	})
	return all
}

// ignored is the warning for b in a project's file, which ignores it:
// "file:line: max_turns is ignored: it is "abc" (a string), and it wants
// a whole number".
func (b *badType) ignored(path string) string {
	key := toml.Key(b.key).String()
	return fmt.Sprintf("%s: %s is ignored: it is %s, and it wants %s", where(path, b.line), key, b.found(b.text), b.want)
}

// say is the sentence for w, value being the value's text in the file
// ("" when unknown).
func (w *wrongType) say(value string) string {
	return fmt.Sprintf("%s is %s; it wants %s", toml.Key(w.key).String(), w.found(value), w.want)
}

// found says what the file holds where w is: the value as written (value,
// when short and on one line) and its kind, "a table" for a table.
func (w *wrongType) found(value string) string {
	if _, ok := w.value.(map[string]any); ok {
		return "a table"
	}
	if value = strings.TrimSpace(value); value == "" || strings.Contains(value, "\n") || len(value) > 60 {
		value = shown(w.value)
	}
	what := kindOf(w.value)
	if w.elem != nil {
		what = "a list holding " + kindOf(w.elem)
	}
	return fmt.Sprintf("%s (%s)", value, what)
}

// shown is v as the file could have written it, kept short.
func shown(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Sprintf("%q", v)
	case []any, []map[string]any:
		return "a list"
	}
	return fmt.Sprint(v)
}

// kindOf names the TOML type of v for a person.
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "a whole number"
	case float64:
		return "a number with a fraction"
	case bool:
		return "true or false"
	case []any, []map[string]any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date or time"
	}
	return fmt.Sprintf("a %T", v)
}

// wanted names what a value of Go type t must be written as.
func wanted(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string (in quotes)"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		e := t.Elem()
		if e.Kind() == reflect.Struct {
			return "tables ([[...]])"
		}
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(wanted(e), " (in quotes)"), "a "), "an ") + "s"
	}
	return "a table"
}

// typesOf appends to out each value under v (at key) whose TOML type does
// not fit Go type t, as BurntSushi/toml would refuse to decode it.
func typesOf(v any, t reflect.Type, key []string, out *[]wrongType) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func() { *out = append(*out, wrongType{key: slices.Clone(key), value: v, want: wanted(t)}) }
	if t == reflect.TypeFor[Sandbox]() {
		sandboxTypes(v, key, out)
		return
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			bad()
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			bad()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if _, ok := v.(int64); !ok {
			bad()
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			bad()
		}
	case reflect.Slice:
		items, ok := listOf(v)
		if !ok {
			bad()
			return
		}
		for _, it := range items {
			if t.Elem().Kind() == reflect.Struct {
				typesOf(it, t.Elem(), key, out)
				continue
			}
			var elem []wrongType
			typesOf(it, t.Elem(), key, &elem)
			if len(elem) > 0 {
				*out = append(*out, wrongType{key: slices.Clone(key), value: v, elem: it, want: wanted(t)})
				return
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			bad()
			return
		}
		for k, val := range m {
			typesOf(val, t.Elem(), slices.Concat(key, []string{k}), out)
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			bad()
			return
		}
		for f := range t.Fields() {
			name := f.Tag.Get("toml")
			if val, ok := m[name]; ok && name != "" && name != "-" {
				typesOf(val, f.Type, slices.Concat(key, []string{name}), out)
			}
		}
	}
}

// listOf returns the elements of a TOML array, of values or of tables.
func listOf(v any) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case []map[string]any:
		items := make([]any, len(v))
		for i, m := range v {
			items[i] = m
		}
		return items, true
	}
	return nil, false
}

// sandboxTypes checks the sandbox key: a mode, or a table of mode,
// network, writable_roots and deny_read (Sandbox.UnmarshalTOML).
func sandboxTypes(v any, key []string, out *[]wrongType) {
	switch v := v.(type) {
	case string:
		return
	case map[string]any:
		fields := map[string]reflect.Type{"mode": reflect.TypeFor[string](), "network": reflect.TypeFor[bool](),
			"writable_roots": reflect.TypeFor[[]string](), "deny_read": reflect.TypeFor[[]string]()}
		for k, val := range v {
			if t, ok := fields[k]; ok {
				typesOf(val, t, slices.Concat(key, []string{k}), out)
			}
		}
		return
	}
	*out = append(*out, wrongType{key: slices.Clone(key), value: v,
		want: `a mode (sandbox = "workspace-write", "read-only" or "off") or a [sandbox] table`})
}
