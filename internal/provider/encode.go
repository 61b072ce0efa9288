package provider

import (
	"bytes"
	"encoding/json"
)

// EncodeJSON returns v as compact JSON with '<', '>' and '&' kept as
// written, where json.Marshal would escape them for HTML: every API reads
// both forms, and prompts, code and tool output are full of them. It is
// how every adapter encodes its request body. Its error is json's, for the
// caller to wrap.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
