package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/catalog"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// switching is what a session's /model builds a model from: the command
// line (as the session was opened, a resumed one's provider, model and
// endpoint filled in from its log) and the configuration.
type switching struct {
	spec cli.Spec
	cfg  *config.Config
}

// switcher returns the kernel's Options.Switch for a session whose
// primary model is primary and whose model in use current says: spec
// ("provider", "provider:model" or "model" of the provider in use) is
// built as --provider and --model would build it, at the endpoint the
// session was given when it names the same provider as primary. A
// scripted session switches only to another name of its own script
// (which goes on where it is), and only it may switch to scripted. Its
// errors are sentences for the person who typed /model: no "usage:".
func (w *switching) switcher(primary kernel.Model, current func() kernel.Current) func(string) (kernel.Model, error) {
	build := w.build(primary, current)
	return func(spec string) (kernel.Model, error) {
		m, err := build(spec)
		if err != nil && errors.Is(err, cli.ErrUsage) {
			err = errors.New(strings.TrimPrefix(err.Error(), cli.ErrUsage.Error()+": "))
		}
		return m, err
	}
}

// build is the switcher's work, its errors as the wiring makes them.
func (w *switching) build(primary kernel.Model, current func() kernel.Current) func(string) (kernel.Model, error) {
	return func(spec string) (kernel.Model, error) {
		name, modelName, err := splitSpec(spec, current().Provider)
		if err != nil {
			return kernel.Model{}, err
		}
		if primary.Name == "scripted" || name == "scripted" {
			return w.scripted(primary, name, modelName)
		}
		s := w.spec
		s.Provider, s.Model = name, modelName
		if name != primary.Name {
			s.BaseURL = "" // the endpoint given belongs to the provider it was given for
		}
		name, modelName, baseURL, err := pick(s, w.cfg)
		if err != nil {
			return kernel.Model{}, err
		}
		m, err := model(context.Background(), name, modelName, baseURL, w.cfg)
		if choice, ok := errors.AsType[*choiceNeeded](err); ok {
			return kernel.Model{}, fmt.Errorf("%v; name one: /model %s:NAME", choice, name)
		}
		if err != nil {
			return kernel.Model{}, err
		}
		// No warning is printed: the screen is the interactive UI's, and
		// the record (model.switched) says where the window came from.
		describe(context.Background(), &m, w.cfg, nil, func(string) {})
		return m, nil
	}
}

// scripted is a switch of a scripted session, or to the scripted provider.
func (w *switching) scripted(primary kernel.Model, name, modelName string) (kernel.Model, error) {
	switch {
	case primary.Name != "scripted":
		return kernel.Model{}, errors.New("the scripted provider plays a script file: start rein with --provider scripted --script FILE to use it")
	case name != "scripted":
		return kernel.Model{}, fmt.Errorf("a scripted session switches only to scripted models (scripted:NAME), not to %s", name)
	}
	m := primary
	m.Model, m.Info = cmp.Or(modelName, primary.Model), nil
	m.Capabilities.ContextWindow, m.Capabilities.MaxOutput = 0, 0
	if _, ok := w.cfg.Models[m.Model]; ok {
		describe(context.Background(), &m, w.cfg, nil, func(string) {})
	}
	return m, nil
}

// splitSpec reads a /model argument: "provider", "provider:model", or a
// model of provider current (a model's name may hold colons, llama3:8b; a
// provider's never does).
func splitSpec(spec, current string) (name, modelName string, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "", "", fmt.Errorf("name a model or a provider (%s), or provider:model", strings.Join(providerNames, ", "))
	}
	if prefix, rest, _ := strings.Cut(spec, ":"); slices.Contains(providerNames, prefix) {
		return prefix, rest, nil
	}
	return current, spec, nil
}

// known returns the names /model completes: "provider:model" for the
// catalogue's models of every provider rein has a key or configuration
// for, and the models the configuration describes ([models."id"]), which
// name a model of the provider in use; sorted, without repeats. A
// scripted session knows only its own model and the configuration's.
func (w *switching) known(primary kernel.Model, fallbacks []kernel.Model) []string {
	names := map[string]bool{}
	for id := range w.cfg.Models {
		names[id] = true
	}
	if primary.Name == "scripted" {
		names[primary.Model] = primary.Model != ""
	} else {
		providers := map[string]bool{primary.Name: true, w.cfg.Provider: true}
		for _, fb := range fallbacks {
			providers[fb.Name] = true
		}
		for _, n := range []string{"anthropic", "openai", "gemini"} {
			if slices.ContainsFunc(adapters[n].keyVars, func(v string) bool { return os.Getenv(v) != "" }) {
				providers[n] = true
			}
		}
		if a, ok := adapters[primary.Name]; ok && compatible(primary.Name) && recordable(primary.BaseURL, a.defaultBaseURL) != "" {
			// The person's own server serves none of the vendor's
			// catalogue: /model lists what the server does.
			delete(providers, primary.Name)
		}
		c := catalog.Embedded()
		for p := range providers {
			for _, id := range c.Models(p) {
				names[p+":"+id] = true
			}
		}
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if names[n] && n != "" {
			out = append(out, n)
		}
	}
	return out
}

// about returns the facts /status shows of a session: its provider,
// endpoint, model and window, the configuration files there are now (the
// person's, their answers', the project's: one made during the session
// is seen, an answer's rules being in force at once), its
// sandbox line, and the instructions its system prompt holds (see
// instructionFacts).
func about(m kernel.Model, cfgPaths config.Paths, answers, sandboxLine string, env kernel.Environment, system string) []cli.Fact {
	endpoint := "none (a script plays the model)"
	if a, ok := adapters[m.Name]; ok {
		endpoint = cmp.Or(m.BaseURL, a.defaultBaseURL) // recordable: no credential
	}
	var files []string
	for _, p := range []string{cfgPaths.User, answers, cfgPaths.Project} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return append([]cli.Fact{
		{Key: "provider", Value: m.Name},
		{Key: "endpoint", Value: endpoint},
		{Key: "model", Value: modelFact(&m)},
		{Key: "configuration", Value: cmp.Or(strings.Join(files, ", "), "none (defaults)")},
		{Key: "sandbox", Value: strings.TrimPrefix(sandboxLine, "sandbox: ")},
	}, instructionFacts(env.Instructions, system)...)
}

// instructionFacts are the lines of /status that list the files of
// instructions, in the order the system prompt holds them: the first
// keyed "instructions", the others under it; each with the bytes the
// prompt holds of it and what was cut. A resumed session keeps the prompt
// its log recorded: a file whose text is not in it (it changed since, or
// is new) is listed as such.
func instructionFacts(files []kernel.InstructionFile, system string) []cli.Fact {
	var facts []cli.Fact
	for _, f := range files {
		value := fmt.Sprintf("%s (%s bytes)", f.Path, thousands(len(f.Text)))
		switch {
		case !strings.Contains(system, f.Section()):
			value = f.Path + " (not in this session's prompt, which keeps the instructions it started with)"
		case f.Cut > 0:
			value = fmt.Sprintf("%s (%s bytes; cut: %s bytes not included)", f.Path, thousands(len(f.Text)), thousands(f.Cut))
		}
		facts = append(facts, cli.Fact{Value: value})
	}
	if len(facts) == 0 {
		return []cli.Fact{{Key: "instructions", Value: "none"}}
	}
	facts[0].Key = "instructions"
	return facts
}

// thousands formats n with thousands separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// modelFact is the model, its window and where rein learned it.
func modelFact(m *kernel.Model) string {
	name := cmp.Or(m.Model, "the provider's default")
	if m.Info == nil || m.Info.ContextWindow <= 0 {
		return name + " (window unknown)"
	}
	from := map[string]string{
		contract.InfoCatalog: "the catalogue", contract.InfoConfig: "your configuration",
		contract.InfoServer: "the server", contract.InfoDefault: "rein's conservative default: nothing knows this model",
	}[m.Info.Source]
	return fmt.Sprintf("%s (window %d tokens, from %s)", name, m.Info.ContextWindow, cmp.Or(from, "unknown"))
}
