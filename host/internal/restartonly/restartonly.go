// Package restartonly names the settings of endpoints.json that only a
// restart applies (the engine's memory cap, recycling mark and load deadline, the pools'
// sizes, the store, the databases, the http.Server's own deadlines,
// header bound, pipelining and refusal pause), and keeps their previous values in a configuration a
// reload read: so the configuration in effect is what serves, never half
// of a change.
package restartonly

import (
	"maps"

	"github.com/wasmendpoints/endpoints/config"
)

// Keep sets in cur, a configuration read by a reload, the values old has
// for the settings only a restart applies, and names, in a fixed order,
// those that changed ("limits.instances", "storage", "databases"...).
// server.shutdownTimeout is one: it is read when the process stops.
//
//	if changed := restartonly.Keep(prev, cur); len(changed) > 0 {
//		log.Printf("%v changed: restart to apply those", changed)
//	}
func Keep(old, cur *config.App) []string {
	var out []string
	keep := func(name string, changed bool) {
		if changed {
			out = append(out, name)
		}
	}
	keep("limits.memoryBytes", pin(&old.Limits.MemoryBytes, &cur.Limits.MemoryBytes))
	keep("limits.recycleMemoryBytes", pin(&old.Limits.RecycleMemoryBytes, &cur.Limits.RecycleMemoryBytes))
	keep("limits.instances", pin(&old.Limits.Instances, &cur.Limits.Instances))
	keep("limits.loadTimeout", pin(&old.Limits.LoadTimeout, &cur.Limits.LoadTimeout))
	keep("limits.instanceIdleTimeout", pin(&old.Limits.InstanceIdleTimeout, &cur.Limits.InstanceIdleTimeout))
	keep("storage", pin(&old.Storage, &cur.Storage))
	keep("server.readHeaderTimeout", pin(&old.Server.ReadHeaderTimeout, &cur.Server.ReadHeaderTimeout))
	keep("server.idleTimeout", pin(&old.Server.IdleTimeout, &cur.Server.IdleTimeout))
	keep("server.maxHeaderBytes", pin(&old.Server.MaxHeaderBytes, &cur.Server.MaxHeaderBytes))
	keep("server.shutdownTimeout", pin(&old.Server.ShutdownTimeout, &cur.Server.ShutdownTimeout))
	keep("server.pipelining", pin(&old.Server.Pipelining, &cur.Server.Pipelining))
	keep("server.refusalPause", pin(&old.Server.RefusalPause, &cur.Server.RefusalPause))
	if !maps.Equal(old.Databases, cur.Databases) {
		cur.Databases = old.Databases
		out = append(out, "databases")
	}
	return out
}

// pin sets *cur to *old and reports whether they differed.
func pin[T comparable](old, cur *T) bool {
	if *old == *cur {
		return false
	}
	*cur = *old
	return true
}
