// Package glob matches slash-separated paths relative to an app against
// the patterns endpoints.json takes (build.watch, build.goBundles):
// path.Match within each segment, and "**" for any number of directories.
package glob

import (
	"path"
	"strings"
)

// Match reports whether name, a slash-separated path relative to the
// app, matches pattern: path.Match syntax within each segment, and "**" as
// a whole segment for any number of directories, none included. The
// patterns of endpoints.json were checked when it was read; a malformed
// segment matches nothing.
//
//	Match("assembly/**/*.ts", "assembly/lib/util.ts") == true
func Match(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pattern, name []string) bool {
	for len(pattern) > 0 {
		if pattern[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(pattern[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pattern[0], name[0]); !ok {
			return false
		}
		pattern, name = pattern[1:], name[1:]
	}
	return len(name) == 0
}
