package glob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"package.json", "package.json", true},
		{"package.json", "sub/package.json", false},
		{"*.ts", "index.ts", true},
		{"*.ts", "lib/index.ts", false},
		{"src/*.ts", "src/a.ts", true},
		{"src/*.ts", "src/a.tsx", false},
		{"src/*", "src/lib/a.ts", false},
		{"src/?.ts", "src/a.ts", true},
		{"src/?.ts", "src/ab.ts", false},
		{"src/[a-c].ts", "src/b.ts", true},
		{"src/[a-c].ts", "src/d.ts", false},
		{"assembly/**/*.ts", "assembly/index.ts", true},
		{"assembly/**/*.ts", "assembly/lib/util.ts", true},
		{"assembly/**/*.ts", "assembly/lib/deep/er/util.ts", true},
		{"assembly/**/*.ts", "assembly/lib/util.js", false},
		{"assembly/**/*.ts", "other/lib/util.ts", false},
		{"assembly/**/*.ts", "index.ts", false},
		{"**/*.ts", "index.ts", true},
		{"**/*.ts", "a/b/index.ts", true},
		{"**", "anything/at/all", true},
		{"src/**", "src", true},
		{"src/**", "src/a/b", true},
		{"src/**", "srcx/a", false},
		{"a/**/b/**/c.wat", "a/x/b/y/z/c.wat", true},
		{"a/**/b/**/c.wat", "a/b/c.wat", true},
		{"a/**/b/**/c.wat", "a/x/c.wat", false},
		{"src/[a-.ts", "src/a.ts", false}, // malformed: matches nothing
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.name, func(t *testing.T) {
			if got := Match(tt.pattern, tt.name); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
			}
		})
	}
}
