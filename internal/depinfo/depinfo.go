// Package depinfo reads the dep-info file rustc writes beside a crate
// (`rustc --emit=link=OUT,dep-info=OUT.d`): the files the crate was made
// from and the environment variables it read, in Makefile form:
//
//	/app/server/api/a.get.wasm: /app/server/api/a.get.rs /app/lib/my\ lib.rs
//
//	/app/server/api/a.get.rs:
//	/app/lib/my\ lib.rs:
//
//	# env-dep:GREETING=hello
//	# env-dep:UNSET_VARIABLE
//
// Every rule's prerequisites are files the crate read: its root, the
// modules `mod` and `#[path]` reached, and the files `include!`,
// `include_str!` and `include_bytes!` named. A space in a path is written
// `\ `. An `# env-dep:` comment names a variable `env!` or `option_env!`
// read, with the value it had (none when unset).
//
// # Notes
//
//   - The file does not list the crates passed with --extern nor the
//     standard library: whoever keys a build by its inputs adds the
//     compiler and those crates itself.
//   - Paths are as rustc formed them: relative to its working directory
//     when the crate root was named relatively, and not cleaned
//     (`/app/server/api/../../lib/x.rs` for a `#[path]` that climbs).
package depinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Info is what one dep-info file lists.
type Info struct {
	// Files are the files the crate read, each once, in the order rustc
	// first listed them (the crate root first).
	Files []string
	// Env are the names of the environment variables the crate read, each
	// once, sorted.
	Env []string
}

// Parse reads a dep-info file's content. name is the file, for errors.
// Lines other than rules, blank lines and comments are an error, as is a
// rule without a target; other comments are skipped.
func Parse(name string, data []byte) (Info, error) {
	var info Info
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			if v, ok := strings.CutPrefix(strings.TrimSpace(rest), "env-dep:"); ok {
				name, _, _ := strings.Cut(v, "=")
				if name != "" && !slices.Contains(info.Env, name) {
					info.Env = append(info.Env, name)
				}
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		words := split(line)
		colon := slices.IndexFunc(words, func(w word) bool { return w.colon })
		if colon < 0 {
			return Info{}, fmt.Errorf("dep-info %s:%d: %q is not a rule (target: prerequisites)", name, n, line)
		}
		if colon == 0 && words[0].text == "" {
			return Info{}, fmt.Errorf("dep-info %s:%d: the rule %q has no target", name, n, line)
		}
		for _, w := range words[colon+1:] {
			if w.colon {
				return Info{}, fmt.Errorf("dep-info %s:%d: the rule %q has two colons", name, n, line)
			}
			if !seen[w.text] {
				seen[w.text] = true
				info.Files = append(info.Files, w.text)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Info{}, fmt.Errorf("dep-info %s: %w", name, err)
	}
	slices.Sort(info.Env)
	return info, nil
}

// A word is a path of a rule; colon marks the target's (its text without
// the colon that ends it).
type word struct {
	text  string
	colon bool
}

// split cuts a rule's line into words at unescaped spaces, unescaping
// `\ `. The target is the word that ends with a colon followed by a space
// or the end of the line, so that a Windows drive (C:\x) stays a path.
func split(line string) []word {
	var words []word
	var cur strings.Builder
	flush := func(colon bool) {
		if cur.Len() > 0 || colon {
			words = append(words, word{text: cur.String(), colon: colon})
		}
		cur.Reset()
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line) && line[i+1] == ' ':
			cur.WriteByte(' ')
			i++
		case c == ' ' || c == '\t':
			flush(false)
		case c == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t'):
			flush(true)
		default:
			cur.WriteByte(c)
		}
	}
	flush(false)
	return words
}
