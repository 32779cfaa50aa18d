package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wasmendpoints/endpoints/cmd/endpoints/internal/apidiff"
)

// The exit codes of endpoints diff are those of diff(1) and cmp(1), so
// that a CI step can tell "the API broke" from "the step broke".
const (
	exitBreaking = 1 // diff: a change at the --fail-on level or above
	exitTrouble  = 2 // diff: no comparison was made: wrong arguments, an app that does not build or load, an unreadable document, a git error
)

const diffUsage = `usage: endpoints diff [flags] OLD NEW
       endpoints diff --base REF [flags] NEW

Reports what changed in the API between two versions, with the checks of
oasdiff: one line per change, breaking ones first, each with its level
(error: breaking; warning: may break some clients; info: compatible), the
operation and what changed.

OLD and NEW are each one of:
  APP             an app directory: its document, as endpoints openapi
                  builds it from the built modules (build them first, or
                  pass --build; a module older than any file it is built
                  from, a shared Go package included, is refused)
  FILE            an OpenAPI document: .json, .yaml or .yml
  REF:PATH        an app directory or a document file as it is at a git ref
                  of the repository around the current directory (PATH as
                  git reads it: from the repository's root, or from here
                  when it starts with ./ or ../); an app is extracted and
                  built as endpoints build builds it
--base REF NEW is REF:NEW, the same app or file at REF.

Flags:
  --base REF        compare NEW with itself at REF (a branch, tag or commit)
  --fail-on LEVEL   the level from which a change is breaking: error (the
                    default) or warn
  --format FORMAT   text (the default) or json
  --cache-dir DIR   compiled module cache
  --set SETTING=V   replace a setting of endpoints.json on both sides, as the
                    ENDPOINTS_* variables do (endpoints help settings)
  --build           build the modules of an APP argument first, as
                    endpoints build does

Exit codes, as diff(1): 0 no breaking change, 1 breaking changes, 2 no
comparison made (wrong arguments, an app that does not build or load, an
unreadable document, a git error).

Examples:
  endpoints diff --base origin/main examples/users
  endpoints diff old.json examples/users
  endpoints diff --format json v1.2.0:examples/users examples/users
`

// diffReport is what --format json prints.
type diffReport struct {
	Old      string       `json:"old"`
	New      string       `json:"new"`
	FailOn   string       `json:"failOn"`
	Breaking int          `json:"breaking"`
	Changes  []diffChange `json:"changes"`
}

type diffChange struct {
	Level     string `json:"level"`
	Breaking  bool   `json:"breaking"`
	Operation string `json:"operation,omitempty"`
	Method    string `json:"method,omitempty"`
	Path      string `json:"path,omitempty"`
	ID        string `json:"id"`
	Text      string `json:"text"`
	Comment   string `json:"comment,omitempty"`
	Corrected string `json:"corrected,omitempty"`
}

// cmdDiff compares two versions of an app's API: it builds or reads each
// side's OpenAPI document, hands both to apidiff and prints the changes.
func cmdDiff(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, diffUsage) }
	base := fs.String("base", "", "compare NEW with the same app or document at this git ref")
	failOn := fs.String("fail-on", "error", `the level from which a change is breaking: "error" or "warn"`)
	format := fs.String("format", "text", `"text" or "json"`)
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	overrides := addConfigFlags(fs, stderr)
	buildApps := fs.Bool("build", false, "build the modules of an APP argument first, as endpoints build does")
	positional, ok := parseArgs(fs, args)
	if !ok {
		return exitTrouble
	}
	usageError := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "endpoints diff: "+format+"\n\n", a...)
		fs.Usage()
		return exitTrouble
	}
	threshold, err := apidiff.ParseLevel(*failOn)
	if err != nil || threshold == apidiff.Info {
		return usageError("--fail-on %q: want error or warn", *failOn)
	}
	if *format != "text" && *format != "json" {
		return usageError("--format %q: want text or json", *format)
	}
	var oldArg, newArg string
	switch {
	case *base != "" && len(positional) == 1:
		newArg = positional[0]
		if _, err := os.Stat(newArg); err != nil {
			return usageError("with --base, NEW is an app directory or a document file here: %v", err)
		}
		rel, err := repoPath(ctx, newArg)
		if err != nil {
			fmt.Fprintf(stderr, "endpoints diff: --base %s %s: %v\n", *base, newArg, err)
			return exitTrouble
		}
		oldArg = *base + ":" + rel
	case *base != "":
		return usageError("with --base, want one argument, NEW; got %d", len(positional))
	case len(positional) == 2:
		oldArg, newArg = positional[0], positional[1]
	default:
		return usageError("want two arguments, OLD and NEW, got %d", len(positional))
	}

	// The same overrides apply to both sides: they stand for the
	// environment the app is deployed in.
	ovs := overrides()
	oldDoc, err := sideDocument(ctx, oldArg, *cacheDir, *buildApps, ovs, stderr)
	if err != nil {
		reportSideError(stderr, "OLD", err)
		return exitTrouble
	}
	newDoc, err := sideDocument(ctx, newArg, *cacheDir, *buildApps, ovs, stderr)
	if err != nil {
		reportSideError(stderr, "NEW", err)
		return exitTrouble
	}
	changes, err := apidiff.Compare(oldDoc, newDoc)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints diff: %v\n", err)
		return exitTrouble
	}
	breaking := apidiff.Breaking(changes, threshold)
	if *format == "json" {
		writeDiffJSON(stdout, oldDoc.Name, newDoc.Name, *failOn, threshold, changes)
	} else {
		writeDiffText(stdout, oldDoc.Name, newDoc.Name, *failOn, threshold, changes)
	}
	if breaking > 0 {
		return exitBreaking
	}
	return exitOK
}

// errReported is a failure whose message is already on stderr.
var errReported = errors.New("reported")

func reportSideError(stderr io.Writer, which string, err error) {
	if !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "endpoints diff: %s: %v\n", which, err)
	}
}

// writeDiffText prints one line per change, then a line that counts them.
//
//	error    PATCH /api/users/{id}: API removed without deprecation [api-removed-without-deprecation]
func writeDiffText(w io.Writer, oldName, newName, failOn string, threshold apidiff.Level, changes []apidiff.Change) {
	counts := map[apidiff.Level]int{}
	for _, c := range changes {
		counts[c.Level]++
		op := c.Operation()
		if op == "" {
			op = "the document"
		}
		line := fmt.Sprintf("%-8s %s: %s [%s]", c.Level, op, c.Text, c.ID)
		if c.Corrected != "" {
			line += fmt.Sprintf(" (level set by endpoints: oasdiff reads this list of types as one type and said %s)", c.Corrected)
		}
		fmt.Fprintln(w, line)
	}
	if len(changes) == 0 {
		fmt.Fprintf(w, "no changes from %s to %s\n", oldName, newName)
		return
	}
	breaking := apidiff.Breaking(changes, threshold)
	verdict := "none breaking"
	if breaking > 0 {
		verdict = fmt.Sprintf("%d breaking", breaking)
	}
	fmt.Fprintf(w, "\n%d change%s from %s to %s (%d error, %d warning, %d info): %s at --fail-on %s\n",
		len(changes), plural(len(changes)), oldName, newName, counts[apidiff.Error], counts[apidiff.Warn], counts[apidiff.Info], verdict, failOn)
}

func writeDiffJSON(w io.Writer, oldName, newName, failOn string, threshold apidiff.Level, changes []apidiff.Change) {
	r := diffReport{Old: oldName, New: newName, FailOn: failOn, Breaking: apidiff.Breaking(changes, threshold), Changes: []diffChange{}}
	for _, c := range changes {
		r.Changes = append(r.Changes, diffChange{
			Level: c.Level.String(), Breaking: c.Level >= threshold,
			Operation: c.Operation(), Method: c.Method, Path: c.Path,
			ID: c.ID, Text: c.Text, Comment: c.Comment, Corrected: c.Corrected,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
