package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

//go:embed todo_write.md
var todoWriteDescription string

// The bounds of a task list: how many items, and how long an item's
// content (and its activeForm) may be, in bytes, once trimmed.
const (
	maxTodos       = 100
	maxTodoContent = 1 << 10
)

var todoWriteSchema = objectSchema([]string{"todos"},
	`"todos":{"type":"array","maxItems":100,"description":"The whole task list, in order.","items":{"type":"object","properties":{`+
		`"content":{"type":"string","minLength":1},`+
		`"status":{"type":"string","enum":["pending","in_progress","completed"]},`+
		`"activeForm":{"type":"string"}},"required":["content","status"]}}`)

// todoInput is todo_write's input, in Claude Code's TodoWrite's names.
// What else an item holds (the id and priority of older TodoWrites) is
// ignored.
type todoInput struct {
	Todos []struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	} `json:"todos"`
}

// TodoWrite returns the todo_write tool: the model's task list, with
// Claude Code's TodoWrite's semantics. Each call gives the whole list,
// which replaces the one before; the tool reports it as todo.updated
// (through registry.Call.Report), from which the state keeps it
// (state.State.Todos) and the views draw it. It changes nothing in the
// workspace: it is a read for the permission policy (no mode asks before
// it, plan mode included) and nothing to checkpoint. Two calls of one
// turn never run together, so that their lists are recorded in order.
//
// A list is refused at validation, saying why, when it has more than 100
// items, an item whose content is empty or longer than 1 KiB once
// trimmed (or whose activeForm is), or more than one item in_progress.
func TodoWrite() registry.Tool {
	t := declare("todo_write", todoWriteDescription, todoWriteSchema, registry.RiskRead,
		func(input json.RawMessage, _ state.Ledger) error {
			_, err := decodeTodos(input)
			return err
		}, writeTodos)
	t.MaxParallel = 1
	return t
}

// decodeTodos returns the list of input, each text trimmed, or, as a
// *registry.CheckError, what is wrong with it.
func decodeTodos(input json.RawMessage) ([]contract.Todo, error) {
	var in todoInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, &registry.CheckError{Code: contract.CodeSchemaInvalid, Message: "todo_write: decode input: " + err.Error()}
	}
	bad := func(format string, args ...any) error {
		return &registry.CheckError{Code: contract.CodeSchemaInvalid, Message: "todo_write: " + fmt.Sprintf(format, args...)}
	}
	if len(in.Todos) > maxTodos {
		return nil, bad("the list has %d items; at most %d are kept: merge or drop some", len(in.Todos), maxTodos)
	}
	todos := make([]contract.Todo, 0, len(in.Todos))
	running := -1
	for i, item := range in.Todos {
		td := contract.Todo{Content: strings.TrimSpace(item.Content), Status: item.Status, ActiveForm: strings.TrimSpace(item.ActiveForm)}
		switch {
		case td.Content == "":
			return nil, bad("item %d has no content: say what is to be done", i+1)
		case len(td.Content) > maxTodoContent:
			return nil, bad("the content of item %d is %d bytes; at most %d: say it shorter", i+1, len(td.Content), maxTodoContent)
		case len(td.ActiveForm) > maxTodoContent:
			return nil, bad("the activeForm of item %d is %d bytes; at most %d: say it shorter", i+1, len(td.ActiveForm), maxTodoContent)
		}
		switch td.Status {
		case contract.TodoPending, contract.TodoCompleted:
		case contract.TodoInProgress:
			if running >= 0 {
				return nil, bad("items %d and %d are both in_progress; at most one item is in_progress at a time: "+
					"mark the others pending or completed", running+1, i+1)
			}
			running = i
		default:
			return nil, bad("item %d has the status %q; it must be pending, in_progress or completed", i+1, td.Status)
		}
		todos = append(todos, td)
	}
	return todos, nil
}

// writeTodos is todo_write: it reports the list and tells the model it
// was saved.
func writeTodos(_ context.Context, call *registry.Call) (registry.Result, error) {
	todos, err := decodeTodos(call.Input)
	if err != nil {
		return registry.Result{}, err
	}
	if call.Report != nil {
		if _, err := call.Report(&contract.TodoUpdated{IntentID: call.IntentID, Todos: todos}); err != nil {
			return registry.Result{}, fmt.Errorf("todo_write: record the list: %w", err)
		}
	}
	return registry.Result{}, writeText(call.Output, todoSaved(todos))
}

// todoSaved is what the model reads of a saved list: how far it is, and,
// as Claude Code says it, to keep it up to date and go on.
func todoSaved(todos []contract.Todo) string {
	if len(todos) == 0 {
		return "The task list is cleared.\n"
	}
	done := 0
	current := ""
	for _, td := range todos {
		switch td.Status {
		case contract.TodoCompleted:
			done++
		case contract.TodoInProgress:
			current = td.Content
		}
	}
	if done == len(todos) {
		return fmt.Sprintf("The task list is saved: all %d items are done.\n", done)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The task list is saved: %d of %d done", done, len(todos))
	if current != "" {
		fmt.Fprintf(&b, "; in progress: %s", current)
	}
	b.WriteString(". Keep it up to date as you work (mark each item completed as soon as it is done), and go on with the current task.\n")
	return b.String()
}
