package restartonly

import (
	"slices"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

// TestKeep: a setting only a restart applies keeps its previous value and
// is named; the others take their new value, unnamed.
func TestKeep(t *testing.T) {
	base := func() *config.App {
		return &config.App{
			Limits:    config.Limits{Instances: 4, Timeout: config.Duration(time.Second)},
			Storage:   config.Storage{Driver: config.DriverMemory},
			Server:    config.Server{IdleTimeout: config.Duration(time.Minute)},
			Databases: map[string]config.Database{"main": {Path: "data/main.db"}},
		}
	}
	for _, tt := range []struct {
		name   string
		change func(c *config.App)
		want   []string
		check  func(t *testing.T, cur *config.App)
	}{
		{"nothing changed", func(*config.App) {}, nil, nil},
		{"a setting a reload applies", func(c *config.App) { c.Limits.Timeout = config.Duration(2 * time.Second) }, nil,
			func(t *testing.T, cur *config.App) {
				if cur.Limits.Timeout != config.Duration(2*time.Second) {
					t.Errorf("limits.timeout = %v, want the new 2s", cur.Limits.Timeout)
				}
			}},
		{"pool size and memory", func(c *config.App) { c.Limits.Instances, c.Limits.MemoryBytes = 8, 1<<20 }, []string{"limits.memoryBytes", "limits.instances"},
			func(t *testing.T, cur *config.App) {
				if cur.Limits.Instances != 4 || cur.Limits.MemoryBytes != 0 {
					t.Errorf("limits = %+v, want the previous instances and memory", cur.Limits)
				}
			}},
		{"the recycling mark", func(c *config.App) { c.Limits.RecycleMemoryBytes = 8 << 20 }, []string{"limits.recycleMemoryBytes"},
			func(t *testing.T, cur *config.App) {
				if cur.Limits.RecycleMemoryBytes != 0 {
					t.Errorf("limits.recycleMemoryBytes = %d, want the previous 0", cur.Limits.RecycleMemoryBytes)
				}
			}},
		{"the store", func(c *config.App) {
			c.Storage = config.Storage{Driver: config.DriverRedis, URL: "redis://127.0.0.1:6379/0"}
		}, []string{"storage"},
			func(t *testing.T, cur *config.App) {
				if cur.Storage.Driver != config.DriverMemory || cur.Storage.URL != "" {
					t.Errorf("storage = %+v, want the previous one", cur.Storage)
				}
			}},
		{"the server's deadlines", func(c *config.App) {
			c.Server.IdleTimeout, c.Server.ShutdownTimeout, c.Server.ReadTimeout = config.Duration(time.Second), config.Duration(time.Second), config.Duration(time.Second)
		}, []string{"server.idleTimeout", "server.shutdownTimeout"},
			func(t *testing.T, cur *config.App) {
				if cur.Server.IdleTimeout != config.Duration(time.Minute) || cur.Server.ShutdownTimeout != 0 || cur.Server.ReadTimeout != config.Duration(time.Second) {
					t.Errorf("server = %+v, want idle and shutdown as before, read timeout new", cur.Server)
				}
			}},
		{"the server's pipelining", func(c *config.App) { c.Server.Pipelining = config.PipeliningServe }, []string{"server.pipelining"},
			func(t *testing.T, cur *config.App) {
				if cur.Server.Pipelining != "" {
					t.Errorf("server.pipelining = %q, want the previous one (the default)", cur.Server.Pipelining)
				}
			}},
		{"the server's refusal pause", func(c *config.App) { c.Server.RefusalPause = "0" }, []string{"server.refusalPause"},
			func(t *testing.T, cur *config.App) {
				if cur.Server.RefusalPause != "" {
					t.Errorf("server.refusalPause = %q, want the previous one (the default)", cur.Server.RefusalPause)
				}
			}},
		{"the databases", func(c *config.App) { c.Databases = map[string]config.Database{"main": {Path: "data/other.db"}} }, []string{"databases"},
			func(t *testing.T, cur *config.App) {
				if cur.Databases["main"].Path != "data/main.db" {
					t.Errorf("databases = %+v, want the previous ones", cur.Databases)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, cur := base(), base()
			tt.change(cur)
			if got := Keep(old, cur); !slices.Equal(got, tt.want) {
				t.Errorf("Keep named %q, want %q", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, cur)
			}
		})
	}
}
