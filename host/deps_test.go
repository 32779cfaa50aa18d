package host_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHostLinksNoMetricsOrRedisLibrary: a program embedding package host
// links neither client_golang (observe/prometheus brings it, for those who
// import it), nor OpenTelemetry (observe/otel does), nor go-redis
// (storage/redis does).
func TestHostLinksNoMetricsOrRedisLibrary(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/wasmendpoints/endpoints/host").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/prometheus/", "go.opentelemetry.io/", "github.com/redis/"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("package host depends on %s", dep)
			}
		}
	}
}
