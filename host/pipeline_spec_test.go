package host

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPipelineFollowsSpec reads the numbered list of docs/spec.md §4 and
// checks the pipeline against it: the same steps, numbers and names (each
// item's first words in bold), in the same order. Steps 1 and 2 are run
// by Host.serve before the pipeline, for every request.
func TestPipelineFollowsSpec(t *testing.T) {
	spec, err := os.ReadFile("../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(spec)
	start := strings.Index(text, "\n## 4. The request pipeline\n")
	if start < 0 {
		t.Fatal(`docs/spec.md has no "## 4. The request pipeline" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	item := regexp.MustCompile(`(?m)^(\d+)\. [^*\n]*\*\*([^*]+)\*\*`)
	type specStep struct {
		n    int
		name string
	}
	var steps []specStep
	for _, m := range item.FindAllStringSubmatch(section, -1) {
		n, _ := strconv.Atoi(m[1])
		steps = append(steps, specStep{n, m[2]})
	}
	before := []specStep{{1, "CORS"}, {2, "Route match"}}
	if len(steps) != len(before)+len(pipeline) {
		t.Fatalf("docs/spec.md §4 lists %d steps %v; the host runs %d in Host.serve and %d in pipeline", len(steps), steps, len(before), len(pipeline))
	}
	for i, s := range steps {
		if s.n != i+1 {
			t.Errorf("docs/spec.md §4: item %d is numbered %d", i+1, s.n)
		}
		want := specStep{}
		if i < len(before) {
			want = before[i]
		} else {
			p := pipeline[i-len(before)]
			want = specStep{p.n, p.name}
		}
		if s != want {
			t.Errorf("docs/spec.md §4 item %d is step %d %q; the host's is step %d %q", i+1, s.n, s.name, want.n, want.name)
		}
	}
}
