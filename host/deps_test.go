package host_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHostLinksNoMetricsOrRedisLibrary: a program embedding package host
// links neither client_golang (observe/prometheus brings it, for those who
// import it), nor OpenTelemetry (observe/otel does), nor go-redis
// (storage/redis does), nor pgx (database/postgres does).
func TestHostLinksNoMetricsOrRedisLibrary(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/wasmendpoints/endpoints/host").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/prometheus/", "go.opentelemetry.io/", "github.com/redis/", "github.com/jackc/"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("package host depends on %s", dep)
			}
		}
	}
}

// TestHostInternalNeverImportsHost: the packages under host/internal are
// the host's lower layers; they never import package host, directly or
// through another package.
func TestHostInternalNeverImportsHost(t *testing.T) {
	t.Parallel()
	const hostPkg = "github.com/wasmendpoints/endpoints/host"
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, hostPkg+"/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], hostPkg+"/internal/") {
			continue
		}
		checked++
		for _, dep := range fields[1:] {
			if dep == hostPkg {
				t.Errorf("%s imports package host", fields[0])
			}
		}
	}
	if checked == 0 {
		t.Errorf("go list found no package under host/internal")
	}
}
