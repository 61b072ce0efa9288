package hook

import (
	"encoding/json"
	"path/filepath"
)

// claudeNames are Claude Code's names of rein's tools, for the matchers
// and the scripts written for Claude Code.
var claudeNames = map[string]string{
	"bash": "Bash", "edit_file": "Edit", "write_file": "Write", "read_file": "Read",
	"glob": "Glob", "grep": "Grep", "list_dir": "LS", "task": "Task", "todo_write": "TodoWrite",
}

// ClaudeName returns Claude Code's name of rein's tool, or tool itself
// when Claude Code has no such tool.
func ClaudeName(tool string) string {
	if n, ok := claudeNames[tool]; ok {
		return n
	}
	return tool
}

// claudeModes are Claude Code's names of rein's permission modes.
var claudeModes = map[string]string{"accept-edits": "acceptEdits", "yolo": "bypassPermissions"}

// common are the fields of every hook's input.
type common struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`
}

func (r *Runner) common(event string) common {
	mode := "default"
	if r.opts.Mode != nil {
		if m := r.opts.Mode(); m != "" {
			mode = m
		}
	}
	if m, ok := claudeModes[mode]; ok {
		mode = m
	}
	return common{SessionID: r.opts.Session, TranscriptPath: r.opts.Transcript, Cwd: r.dir, PermissionMode: mode, HookEventName: event}
}

// toolInput is the input of a tool hook: the fields of common, then the
// call's.
type toolInput struct {
	common
	ToolName     string          `json:"tool_name"`
	ReinToolName string          `json:"rein_tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse *toolResponse   `json:"tool_response,omitempty"`
}

// toolResponse is what PostToolUse hooks are given of the call's end.
type toolResponse struct {
	Success  bool   `json:"success"`
	Output   string `json:"output"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// claudeInput returns a tool's input with Claude Code's field names added
// where they differ from rein's: file_path (absolute) for path of the
// file tools, -i and -C for grep's ignore_case and context. An input that
// is not a JSON object is returned as it is.
func claudeInput(tool string, in json.RawMessage, dir string) json.RawMessage {
	var m map[string]any
	if !json.Valid(in) {
		return json.RawMessage("{}")
	}
	if json.Unmarshal(in, &m) != nil || m == nil {
		return in
	}
	switch tool {
	case "read_file", "write_file", "edit_file":
		if p, ok := m["path"].(string); ok {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			m["file_path"] = filepath.Clean(p)
		}
	case "task":
		// Claude Code's Task names the agent subagent_type.
		if v, ok := m["agent"]; ok {
			m["subagent_type"] = v
		}
	case "grep":
		if v, ok := m["ignore_case"]; ok {
			m["-i"] = v
		}
		if v, ok := m["context"]; ok {
			m["-C"] = v
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return in
	}
	return out
}

// promptInput is UserPromptSubmit's input.
type promptInput struct {
	common
	Prompt string `json:"prompt"`
}

// sessionInput is SessionStart's input.
type sessionInput struct {
	common
	Source string `json:"source"`
}

// stopInput is Stop's input.
type stopInput struct {
	common
	StopHookActive       bool   `json:"stop_hook_active"`
	LastAssistantMessage string `json:"last_assistant_message"`
}
