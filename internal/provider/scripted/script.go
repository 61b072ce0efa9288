package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/provider"
)

// Script is a parsed, validated script: what a [Provider] plays. It is
// immutable once built, so one Script may serve many providers at once. The
// zero value is a script with no turns, which answers every request with a
// bad_request error.
type Script struct {
	model      string
	chunkDelay time.Duration
	turns      []turn
	// summary answers the requests of a compaction; nil means the script
	// has none, and such a request fails.
	summary *turn
}

// Turns returns the number of turns in the script.
func (s *Script) Turns() int { return len(s.turns) }

// turn is one model call of the script.
type turn struct {
	fail   []failure
	steps  []step
	expect []expectation
}

// failure is one entry of a turn's fail list: the error, and the steps
// streamed before it, if any.
type failure struct {
	err   errorSpec
	steps []step
}

// action says what a step does.
type action int

const (
	actText action = iota
	actReasoning
	actTool
	actToolEnd
	actUsage
	actFinish
	actError
)

// step is one parsed step; which fields are set depends on act.
type step struct {
	act    action
	text   string            // actText, actReasoning
	frag   provider.Fragment // actTool; Index and ID for actToolEnd
	usage  contract.ModelUsage
	reason contract.FinishReason
	state  json.RawMessage // actFinish, optional
	err    errorSpec       // actError
}

// errorSpec is a scripted provider error, as written in the file.
type errorSpec struct {
	Kind         contract.ErrorKind `json:"kind"`
	Message      string             `json:"message"`
	HTTPStatus   int                `json:"http_status"`
	RetryAfterMS int64              `json:"retry_after_ms"`
	Retryable    *bool              `json:"retryable"`
}

// finishReasons are the reasons a finish step may give.
var finishReasons = []contract.FinishReason{
	contract.FinishStop, contract.FinishToolUse, contract.FinishLength,
	contract.FinishContentFilter, contract.FinishAborted, contract.FinishError,
}

// Load reads and parses the script file at path. Its errors name the file
// and, for a bad script, the turn and step at fault.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	s, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("scripted: %s: %w", path, err)
	}
	return s, nil
}

// Parse parses a script (the format is in the package documentation). It is
// strict: unknown fields, a step with no action or two, a finish reason or
// an error kind rein does not know, a step after the finish, or a tool_end
// that matches no open call are errors, which say the turn and step at
// fault, counted from 1.
func Parse(data []byte) (*Script, error) {
	s, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	return s, nil
}

func parse(data []byte) (*Script, error) {
	var file struct {
		Model        string            `json:"model"`
		ChunkDelayMS int64             `json:"chunk_delay_ms"`
		Turns        []json.RawMessage `json:"turns"`
		Summary      json.RawMessage   `json:"summary"`
	}
	if err := decodeObject(data, &file); err != nil {
		return nil, err
	}
	if file.ChunkDelayMS < 0 {
		return nil, fmt.Errorf("chunk_delay_ms is %d; it must be 0 or more", file.ChunkDelayMS)
	}
	if len(file.Turns) == 0 {
		return nil, errors.New(`the script has no turns; add at least one to "turns"`)
	}
	s := &Script{
		model:      file.Model,
		chunkDelay: time.Duration(file.ChunkDelayMS) * time.Millisecond,
		turns:      make([]turn, len(file.Turns)),
	}
	for i, raw := range file.Turns {
		t, err := parseTurn(raw)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		s.turns[i] = t
	}
	if len(file.Summary) > 0 {
		t, err := parseTurn(file.Summary)
		if err != nil {
			return nil, fmt.Errorf("summary: %w", err)
		}
		s.summary = &t
	}
	return s, nil
}

func parseTurn(data []byte) (turn, error) {
	var file struct {
		Fail   []json.RawMessage `json:"fail"`
		Steps  []json.RawMessage `json:"steps"`
		Expect []json.RawMessage `json:"expect"`
	}
	if err := decodeObject(data, &file); err != nil {
		return turn{}, err
	}
	var t turn
	expect, err := parseExpect(file.Expect)
	if err != nil {
		return turn{}, err
	}
	t.expect = expect
	for i, raw := range file.Fail {
		f, err := parseFailure(raw)
		if err != nil {
			return turn{}, fmt.Errorf("fail %d: %w", i+1, err)
		}
		t.fail = append(t.fail, f)
	}
	steps, err := parseSteps(file.Steps, true)
	if err != nil {
		return turn{}, err
	}
	t.steps = steps
	return t, nil
}

func parseFailure(data []byte) (failure, error) {
	var file struct {
		errorSpec
		Steps []json.RawMessage `json:"steps"`
	}
	if err := decodeObject(data, &file); err != nil {
		return failure{}, err
	}
	if err := file.check(); err != nil {
		return failure{}, err
	}
	steps, err := parseSteps(file.Steps, false)
	if err != nil {
		return failure{}, err
	}
	return failure{err: file.errorSpec, steps: steps}, nil
}

// parseSteps parses a list of steps. terminal says whether it may end with
// a finish or an error step: a turn's steps may, a failure's may not (the
// failure is its own end).
func parseSteps(raws []json.RawMessage, terminal bool) ([]step, error) {
	// Play the tool steps through an assembler, as Stream will, so that a
	// tool_end matching no open call is caught here rather than doing
	// nothing at run time.
	asm := provider.NewAssembler(contract.ProviderRef{})
	steps := make([]step, 0, len(raws))
	for i, raw := range raws {
		st, err := parseStep(raw)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		if st.act == actFinish || st.act == actError {
			if !terminal {
				return nil, fmt.Errorf("step %d: a failure's steps cannot have a %s; the failure's own error ends the stream", i+1, actionName(st.act))
			}
			if i < len(raws)-1 {
				return nil, fmt.Errorf("step %d: nothing may follow the %s of step %d", i+2, actionName(st.act), i+1)
			}
		}
		switch st.act {
		case actTool:
			asm.Add(st.frag)
		case actToolEnd:
			if asm.End(st.frag.Index, st.frag.ID) == nil {
				return nil, fmt.Errorf("step %d: tool_end %s matches no open tool call", i+1, callKey(st.frag))
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// stepFile is a step as written: exactly one action field is set.
type stepFile struct {
	Text          *string              `json:"text"`
	Reasoning     *string              `json:"reasoning"`
	Tool          *toolFile            `json:"tool"`
	ToolEnd       *toolEndFile         `json:"tool_end"`
	Usage         *contract.ModelUsage `json:"usage"`
	Finish        *string              `json:"finish"`
	ProviderState json.RawMessage      `json:"provider_state"`
	Error         *errorSpec           `json:"error"`
}

type toolFile struct {
	Index *int            `json:"index"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Args  *string         `json:"args"`
	Input json.RawMessage `json:"input"`
}

type toolEndFile struct {
	Index *int   `json:"index"`
	ID    string `json:"id"`
}

const actions = "text, reasoning, tool, tool_end, usage, finish or error"

func parseStep(data []byte) (step, error) {
	var f stepFile
	if err := decodeObject(data, &f); err != nil {
		return step{}, err
	}
	var set []string
	for name, present := range map[string]bool{
		"text": f.Text != nil, "reasoning": f.Reasoning != nil, "tool": f.Tool != nil,
		"tool_end": f.ToolEnd != nil, "usage": f.Usage != nil, "finish": f.Finish != nil,
		"error": f.Error != nil,
	} {
		if present {
			set = append(set, name)
		}
	}
	switch len(set) {
	case 0:
		return step{}, fmt.Errorf("the step has no action; give exactly one of %s", actions)
	case 1:
	default:
		slices.Sort(set)
		return step{}, fmt.Errorf("the step has %d actions (%s); give exactly one of %s", len(set), strings.Join(set, ", "), actions)
	}
	if f.ProviderState != nil && f.Finish == nil {
		return step{}, errors.New("provider_state belongs with finish")
	}

	switch {
	case f.Text != nil:
		return step{act: actText, text: *f.Text}, nil
	case f.Reasoning != nil:
		return step{act: actReasoning, text: *f.Reasoning}, nil
	case f.Tool != nil:
		frag := provider.Fragment{Index: index(f.Tool.Index), ID: f.Tool.ID, Name: f.Tool.Name}
		switch {
		case f.Tool.Args != nil && f.Tool.Input != nil:
			return step{}, errors.New("tool: give args or input, not both")
		case f.Tool.Args != nil:
			frag.Args = *f.Tool.Args
		case f.Tool.Input != nil:
			var b bytes.Buffer
			if err := json.Compact(&b, f.Tool.Input); err != nil {
				return step{}, fmt.Errorf("tool: input: %w", err)
			}
			frag.Args = b.String()
		}
		return step{act: actTool, frag: frag}, nil
	case f.ToolEnd != nil:
		return step{act: actToolEnd, frag: provider.Fragment{Index: index(f.ToolEnd.Index), ID: f.ToolEnd.ID}}, nil
	case f.Usage != nil:
		return step{act: actUsage, usage: *f.Usage}, nil
	case f.Finish != nil:
		reason := contract.FinishReason(*f.Finish)
		if !slices.Contains(finishReasons, reason) {
			return step{}, fmt.Errorf("finish %q is not a finish reason; use one of %s", *f.Finish, list(finishReasons))
		}
		st := step{act: actFinish, reason: reason}
		if !bytes.Equal(f.ProviderState, []byte("null")) {
			st.state = f.ProviderState
		}
		return st, nil
	default:
		if err := f.Error.check(); err != nil {
			return step{}, fmt.Errorf("error: %w", err)
		}
		return step{act: actError, err: *f.Error}, nil
	}
}

// check validates an error as written in a script.
func (e *errorSpec) check() error {
	switch {
	case e.Kind == "":
		return fmt.Errorf("kind is missing; use one of %s", list(contract.ErrorKinds))
	case !slices.Contains(contract.ErrorKinds, e.Kind):
		return fmt.Errorf("kind %q is not an error kind; use one of %s", e.Kind, list(contract.ErrorKinds))
	case e.HTTPStatus != 0 && (e.HTTPStatus < 100 || e.HTTPStatus > 599):
		return fmt.Errorf("http_status %d is not an HTTP status", e.HTTPStatus)
	case e.RetryAfterMS < 0:
		return fmt.Errorf("retry_after_ms is %d; it must be 0 or more", e.RetryAfterMS)
	}
	return nil
}

// index returns the fragment index a script gives, -1 when it gives none.
func index(i *int) int {
	if i == nil || *i < 0 {
		return -1
	}
	return *i
}

// callKey describes how a tool_end names its call.
func callKey(f provider.Fragment) string {
	switch {
	case f.Index >= 0 && f.ID != "":
		return fmt.Sprintf("{index %d, id %q}", f.Index, f.ID)
	case f.Index >= 0:
		return fmt.Sprintf("{index %d}", f.Index)
	case f.ID != "":
		return fmt.Sprintf("{id %q}", f.ID)
	}
	return "{}"
}

func actionName(a action) string {
	if a == actFinish {
		return "finish"
	}
	return "error"
}

func list[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// decodeObject decodes the JSON object data into v strictly: unknown
// fields and trailing data are errors, and so is anything but an object.
func decodeObject(data []byte, v any) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] != '{' && json.Valid(data) {
		return fmt.Errorf("expected a JSON object, found %s", strings.TrimSpace(excerpt.Bytes(trimmed, 20)))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return explain(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: unexpected data after the JSON object", position(data, dec.InputOffset()))
	}
	return nil
}

// explain rewrites a decoding error for the person who wrote the script.
func explain(data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the script is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends too soon: an object, list or string is not closed")
	case errors.As(err, &syntax):
		// Offset counts the bytes read, the offending one included.
		return fmt.Errorf("%s: %s", position(data, syntax.Offset-1), syntax.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "value"
		}
		return fmt.Errorf("%s: a JSON %s cannot be a %s", field, typ.Value, typeName(typ.Type.Kind().String()))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// typeName names a Go kind the way the script's author thinks of it.
func typeName(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "whole number"
	case strings.HasPrefix(kind, "float"):
		return "number"
	case kind == "struct", kind == "map":
		return "object"
	case kind == "slice", kind == "array":
		return "list"
	case kind == "bool":
		return "boolean"
	}
	return kind
}

// position turns a byte offset into "line L, column C".
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}
