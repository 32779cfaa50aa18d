package endpoints

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// strayGoroutines names the n newest goroutines of dump, the text
// runtime.Stack(buf, true) writes, other than the first (the caller's):
// settle's guess at the goroutines its call started and left there, since
// goroutine ids only grow. Each is named by id, what it waits for (the
// runtime's words: "sleep" for time.Sleep, "chan receive", "select") and
// where it was started:
//
//	goroutine 7 [sleep], started at /src/handlers/notify/main.go:21 (main.init.0.func1)
//
// A dump cut short by its buffer names those it holds.
func strayGoroutines(dump []byte, n int) []string {
	type goroutine struct {
		id   int
		text string
	}
	var found []goroutine
	for i, block := range bytes.Split(dump, []byte("\n\n")) {
		if i == 0 {
			continue // the caller's, [running]
		}
		id, text, ok := describeGoroutine(string(block))
		if ok {
			found = append(found, goroutine{id, text})
		}
	}
	slices.SortFunc(found, func(a, b goroutine) int { return b.id - a.id })
	names := make([]string, 0, min(n, len(found)))
	for _, g := range found[:min(n, len(found))] {
		names = append(names, g.text)
	}
	return names
}

// describeGoroutine reads one goroutine's block of a dump: its header
// ("goroutine 7 [sleep]:"), then its frames, and last, unless it is the
// main goroutine, "created by F in goroutine N" and the file and line of
// the go statement, tab-indented.
func describeGoroutine(block string) (id int, text string, ok bool) {
	header, rest, _ := strings.Cut(block, "\n")
	after, found := strings.CutPrefix(header, "goroutine ")
	if !found {
		return 0, "", false
	}
	idText, state, _ := strings.Cut(after, " ")
	id, err := strconv.Atoi(idText)
	if err != nil {
		return 0, "", false
	}
	// "[chan receive, 2 minutes]:", "[sleep]:"; the id may be followed by
	// more (gp=... m=... under GOTRACEBACK=system) before the state.
	if i := strings.IndexByte(state, '['); i >= 0 {
		state = state[i:]
	}
	state = strings.TrimSuffix(state, ":")
	text = "goroutine " + idText + " " + state
	_, created, found := strings.Cut(rest, "\ncreated by ")
	if !found {
		created, found = strings.CutPrefix(rest, "created by ")
	}
	if found {
		fn, where, _ := strings.Cut(created, "\n")
		fn, _, _ = strings.Cut(fn, " in goroutine ")
		where = strings.TrimSpace(where)
		where, _, _ = strings.Cut(where, " +0x")
		text += ", started at " + where + " (" + fn + ")"
	}
	return id, text, true
}
