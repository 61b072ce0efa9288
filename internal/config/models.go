package config

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// limitProject takes out of the project's file d what a cloned repository
// may not set of the context engine and the model calls, each with a
// warning naming the file and line and saying why: reasoning_effort (it
// may ask for the dearest thinking), compact_at (it may compact every
// turn), first_byte_timeout (how long to wait for your server is yours to
// say), every [models."id"] table (a window far past the model's turns
// elision and compaction off, a price makes your spending look smaller),
// and a max_cost above the user's (it may only lower the budget; 0 would
// remove it).
func (c *Config) limitProject(d *decoded) []string {
	var out []string
	for _, l := range []struct{ key, why string }{
		{"reasoning_effort", "a cloned repository could ask for the model's dearest thinking on every call, which you pay for; " +
			"set it in your own config.toml or pass --reasoning-effort"},
		{"compact_at", "a cloned repository could make rein summarise your conversation every turn, losing its detail " +
			"and spending calls on it; set it in your own config.toml"},
		{"first_byte_timeout", "how long rein waits for your model's server is yours to say: a cloned repository could make rein " +
			"give up on every call at once, or wait on a server that died for as long as it likes; set it in your own config.toml"},
	} {
		if d.md.IsDefined(l.key) {
			out = append(out, fmt.Sprintf("%s: %s is ignored: %s", d.at(l.key), l.key, l.why))
			d.drop(l.key)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(d.Models)) {
		out = append(out, fmt.Sprintf("%s: [models.%q] is ignored: only your own config.toml may describe a model", d.modelAt(id, ""), id))
	}
	d.Models = nil
	if d.md.IsDefined("max_cost") && c.MaxCost > 0 && (d.MaxCost == 0 || d.MaxCost > c.MaxCost) {
		out = append(out, fmt.Sprintf("%s: max_cost = %v is ignored: a project's file may only lower the max_cost of %v your own config.toml sets",
			d.at("max_cost"), d.MaxCost, c.MaxCost))
		d.drop("max_cost")
	}
	return out
}

// drop makes d as if it did not set key: limitProject ignored it.
func (d *decoded) drop(key string) {
	if d.dropped == nil {
		d.dropped = map[string]bool{}
	}
	d.dropped[key] = true
}

// defines says whether d sets key and limitProject did not drop it.
func (d *decoded) defines(key string) bool { return d.md.IsDefined(key) && !d.dropped[key] }

// checkFinite checks that no price of the [models."id"] tables is NaN or
// infinite (TOML spells them nan and inf), which the range checks after
// it would let through; the settings' numbers are problems' to check.
func (d *decoded) checkFinite() error {
	for _, id := range slices.Sorted(maps.Keys(d.Models)) {
		m := d.Models[id]
		for _, v := range m.prices() {
			if v.p != nil && (math.IsNaN(*v.p) || math.IsInf(*v.p, 0)) {
				return fmt.Errorf("config: %s: [models.%q] %s is %v; it must be a finite number", d.modelAt(id, v.key), id, v.key, *v.p)
			}
		}
	}
	return nil
}

// priceKey is one price key of a [models."id"] table and its value.
type priceKey struct {
	key string
	p   *float64
}

// prices are the table's price keys, in the order a file lists them.
func (m *Model) prices() []priceKey {
	return []priceKey{{"input_price", m.InputPrice}, {"output_price", m.OutputPrice},
		{"cache_read_price", m.CacheReadPrice}, {"cache_write_price", m.CacheWritePrice}}
}

// validateContext checks the context engine's settings of the file, each
// error naming the file and the line that set the value.
func (d *decoded) validateContext() error {
	if d.defines("compact_at") && (d.CompactAt <= 0 || d.CompactAt >= 1) {
		return fmt.Errorf("config: %s: compact_at is %v; it must be between 0 and 1 (0.85 compacts at 85%% of the input budget)",
			d.at("compact_at"), d.CompactAt)
	}
	if d.defines("first_byte_timeout") && d.FirstByteTimeout < 0 {
		return fmt.Errorf("config: %s: first_byte_timeout is %v; it must be a number of seconds, more than 0 (0 means the default, 90)",
			d.at("first_byte_timeout"), d.FirstByteTimeout)
	}
	if d.defines("reasoning_effort") && strings.TrimSpace(d.ReasoningEffort) == "" {
		return fmt.Errorf("config: %s: reasoning_effort is empty; name a level of the model (low, medium, high...) or leave it out",
			d.at("reasoning_effort"))
	}
	for _, id := range slices.Sorted(maps.Keys(d.Models)) {
		if err := d.validateModel(id); err != nil {
			return err
		}
	}
	return nil
}

// validateModel checks one [models."id"] table.
func (d *decoded) validateModel(id string) error {
	m := d.Models[id]
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("config: %s: [models.\"\"] names no model", d.modelAt(id, ""))
	}
	for _, v := range []struct {
		key string
		n   int
	}{{"context_window", m.ContextWindow}, {"max_output", m.MaxOutput}} {
		if v.n < 0 {
			return fmt.Errorf("config: %s: [models.%q] %s is %d; it must be a number of tokens, 1 or more", d.modelAt(id, v.key), id, v.key, v.n)
		}
	}
	if m.ContextWindow > 0 && m.MaxOutput >= m.ContextWindow {
		return fmt.Errorf("config: %s: [models.%q] max_output (%d) must be smaller than context_window (%d)",
			d.modelAt(id, "max_output"), id, m.MaxOutput, m.ContextWindow)
	}
	for _, v := range m.prices() {
		if v.p != nil && *v.p < 0 {
			return fmt.Errorf("config: %s: [models.%q] %s is %v; a price is 0 or more US dollars per million tokens",
				d.modelAt(id, v.key), id, v.key, *v.p)
		}
	}
	for _, l := range m.ReasoningLevels {
		if strings.TrimSpace(l) == "" {
			return fmt.Errorf("config: %s: [models.%q] reasoning_levels has an empty level", d.modelAt(id, "reasoning_levels"), id)
		}
	}
	return nil
}

// applyContext sets over c the context engine's settings of d: the
// scalars, and each model's table field by field (only the user's file has
// any left once limitProject has run, but over keeps the merge exact).
func (c *Config) applyContext(d *decoded, set func(string)) {
	if d.defines("compact_at") {
		c.CompactAt = d.CompactAt
		set("compact_at")
	}
	if d.defines("max_cost") {
		c.MaxCost = d.MaxCost
		set("max_cost")
	}
	if d.defines("first_byte_timeout") && d.FirstByteTimeout > 0 {
		c.FirstByteTimeout = d.FirstByteTimeout
		set("first_byte_timeout")
	}
	if d.defines("reasoning_effort") && d.ReasoningEffort != "" {
		c.ReasoningEffort = strings.TrimSpace(d.ReasoningEffort)
		set("reasoning_effort")
	}
	for id, m := range d.Models {
		if c.Models == nil {
			c.Models = map[string]Model{}
		}
		c.Models[id] = over(c.Models[id], m)
		c.Source["models."+id] = d.path
		c.lines["models."+id] = modelLine(d.text, id)
	}
}

// over is m with what o sets over it.
func over(m, o Model) Model {
	if o.ContextWindow > 0 {
		m.ContextWindow = o.ContextWindow
	}
	if o.MaxOutput > 0 {
		m.MaxOutput = o.MaxOutput
	}
	for _, p := range []struct{ from, to **float64 }{
		{&o.InputPrice, &m.InputPrice}, {&o.OutputPrice, &m.OutputPrice},
		{&o.CacheReadPrice, &m.CacheReadPrice}, {&o.CacheWritePrice, &m.CacheWritePrice},
	} {
		if *p.from != nil {
			*p.to = *p.from
		}
	}
	if o.ReasoningLevels != nil {
		m.ReasoningLevels = o.ReasoningLevels
	}
	return m
}

// modelAt says where the table of model id sets key in the file:
// "file:line" (the table's header when key is "" or not found), or the
// file alone.
func (d *decoded) modelAt(id, key string) string {
	start := modelLine(d.text, id)
	if start == 0 || key == "" {
		return where(d.path, start)
	}
	lines := strings.Split(d.text, "\n")
	for i := start; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") {
			break
		}
		if rest, ok := strings.CutPrefix(l, key); ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
			return where(d.path, i+1)
		}
	}
	return where(d.path, start)
}

// modelLine returns the number of the line of the TOML text data that
// opens the table [models."id"] (or [models.id]), or 0.
func modelLine(data, id string) int {
	for i, l := range strings.Split(data, "\n") {
		l = strings.ReplaceAll(strings.TrimSpace(l), " ", "")
		for _, h := range []string{`[models."` + id + `"]`, `[models.'` + id + `']`, "[models." + id + "]"} {
			if strings.HasPrefix(l, h) {
				return i + 1
			}
		}
	}
	return 0
}
