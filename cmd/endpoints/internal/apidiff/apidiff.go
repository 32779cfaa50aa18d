// Package apidiff compares two versions of an OpenAPI document and reports
// what changed for a client, with the checks of oasdiff
// (github.com/oasdiff/oasdiff): a removed operation, a new required
// parameter, a narrowed schema, a removed response are breaking; an added
// operation or optional parameter is not.
//
//	changes, err := apidiff.Compare(
//		apidiff.Document{Name: "old.json", Data: old},
//		apidiff.Document{Name: "new.json", Data: new})
//	if apidiff.Breaking(changes, apidiff.Error) > 0 {
//		// a client written against old.json may fail against new.json
//	}
//
// Only the endpoints command links it: the host does not need oasdiff.
//
// # Notes
//
//   - Each Level is oasdiff's, with one correction: oasdiff v1.37.0 judges
//     a change to a list of types (OpenAPI 3.1 "type": ["string",
//     "integer"]) where values travel as text (parameters, headers, form
//     bodies) as if the list were one type, so removing a type reads as
//     compatible and adding one as breaking. Compare judges those changes
//     itself (see typelists.go) and says so in Change.Corrected.
//   - Documents are read with kin-openapi, which oasdiff uses; references
//     outside the document are not followed.
package apidiff

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

// Level is how much a change matters to a client, as oasdiff grades it.
type Level int

const (
	// Info is a change no client notices: an added operation, a new
	// optional parameter, a response that returns less.
	Info Level = iota
	// Warn is a change that may break some clients, such as a removed
	// optional parameter.
	Warn
	// Error is a breaking change: a client that worked against the old
	// document can fail against the new one.
	Error
)

// String is the name oasdiff gives the level: "info", "warning" or "error".
func (l Level) String() string {
	switch l {
	case Error:
		return "error"
	case Warn:
		return "warning"
	}
	return "info"
}

// ParseLevel reads a level named by a user: "error", "warn" (or
// "warning") or "info".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "error":
		return Error, nil
	case "warn", "warning":
		return Warn, nil
	case "info":
		return Info, nil
	}
	return 0, fmt.Errorf("level %q: want error, warn or info", s)
}

// Document is one version of an OpenAPI document: JSON or YAML.
type Document struct {
	// Name says where the document came from; errors and changes name it.
	Name string
	Data []byte
}

// Change is one difference between the two documents.
type Change struct {
	Level Level
	// ID is oasdiff's rule, such as "api-removed-without-deprecation"
	// (the rules are listed in oasdiff's docs/BREAKING-CHANGES.md).
	ID string
	// Method and Path name the operation, as the documents spell them
	// ("GET", "/api/users/{id}"); both are empty for a change to the whole
	// document, such as its version.
	Method, Path string
	// Text says what changed, in one sentence.
	Text string
	// Comment, when not empty, says why the change has its level.
	Comment string
	// Corrected is oasdiff's rule when Compare replaced its verdict (see
	// the package notes); empty otherwise.
	Corrected string
}

// Operation is "METHOD /path", or "" for a change to the whole document.
func (c Change) Operation() string {
	if c.Method == "" {
		return c.Path
	}
	return c.Method + " " + c.Path
}

// Breaking counts the changes at level or above.
func Breaking(changes []Change, level Level) int {
	n := 0
	for _, c := range changes {
		if c.Level >= level {
			n++
		}
	}
	return n
}

// Compare reports every change from old to new, at every level: breaking
// ones first, then by path, method and rule.
func Compare(old, new Document) ([]Change, error) {
	s1, err := loadDocument(old)
	if err != nil {
		return nil, err
	}
	s2, err := loadDocument(new)
	if err != nil {
		return nil, err
	}
	d, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with %s: %w", old.Name, new.Name, err)
	}
	// The corrections are made inside oasdiff's pipeline, each check's
	// findings as they come, so that what runs after the checks (the
	// versioning policy: "a breaking change was detected but the version
	// is still 1.0.0") sees the corrected levels.
	corrections := map[string]string{}
	checks := checker.GetAllChecks()
	for i, check := range checks {
		if check == nil {
			continue
		}
		checks[i] = func(d *diff.Diff, s *diff.OperationsSourcesMap, cfg *checker.Config) checker.Changes {
			found := check(d, s, cfg)
			for j, f := range found {
				if g, was := correctTypeList(f); was != "" {
					found[j], corrections[changeKey(g)] = g, was
				}
			}
			return found
		}
	}
	found := checker.CheckBackwardCompatibilityUntilLevel(checker.NewConfig(checks), d, sources, checker.INFO)
	l := checker.NewDefaultLocalizer()
	changes := make([]Change, 0, len(found))
	for _, f := range found {
		changes = append(changes, Change{
			Level:     level(f.GetLevel()),
			ID:        f.GetId(),
			Method:    f.GetOperation(),
			Path:      f.GetPath(),
			Text:      strings.TrimSpace(f.GetUncolorizedText(l)),
			Comment:   strings.TrimSpace(f.GetComment(l)),
			Corrected: corrections[changeKey(f)],
		})
	}
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Or(-cmp.Compare(a.Level, b.Level), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Text, b.Text))
	})
	return changes, nil
}

// changeKey tells a finding from the others of one comparison.
func changeKey(c checker.Change) string {
	return fmt.Sprint(c.GetId(), "\x00", c.GetOperation(), " ", c.GetPath(), "\x00", c.GetArgs())
}

// loadDocument parses one document with a loader of its own (a loader
// caches documents by name).
func loadDocument(doc Document) (*load.SpecInfo, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	spec, err := loader.LoadFromDataWithPath(doc.Data, &url.URL{Path: doc.Name})
	if err != nil {
		return nil, fmt.Errorf("%s: not an OpenAPI document oasdiff can read: %w", doc.Name, err)
	}
	if spec.OpenAPI == "" {
		return nil, fmt.Errorf("%s: not an OpenAPI document: it has no \"openapi\" member", doc.Name)
	}
	withoutHostAlternatives(spec)
	info := &load.SpecInfo{Url: doc.Name, Spec: spec}
	if spec.Info != nil {
		info.Version = spec.Info.Version
	}
	return info, nil
}

func level(l checker.Level) Level {
	switch {
	case l >= checker.ERR:
		return Error
	case l >= checker.WARN:
		return Warn
	}
	return Info
}
