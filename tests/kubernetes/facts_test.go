package kubernetes

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/wasmendpoints/endpoints/config"
	// The drivers the settings name, linked as the command links them.
	_ "github.com/wasmendpoints/endpoints/database/postgres"
	_ "github.com/wasmendpoints/endpoints/storage/redis"
)

// The members of the manifests the facts below read.
type (
	probe struct {
		HTTPGet struct {
			Path string `json:"path"`
			Port any    `json:"port"`
		} `json:"httpGet"`
	}
	container struct {
		Args  []string `json:"args"`
		Ports []struct {
			Name          string `json:"name"`
			ContainerPort int    `json:"containerPort"`
		} `json:"ports"`
		Env []struct {
			Name      string          `json:"name"`
			Value     string          `json:"value"`
			ValueFrom json.RawMessage `json:"valueFrom"`
		} `json:"env"`
		ReadinessProbe, LivenessProbe *probe
		Lifecycle                     struct {
			PreStop struct {
				Sleep struct {
					Seconds int `json:"seconds"`
				} `json:"sleep"`
			} `json:"preStop"`
		} `json:"lifecycle"`
		Resources struct {
			Requests map[string]string `json:"requests"`
		} `json:"resources"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem"`
		} `json:"securityContext"`
		VolumeMounts []struct {
			Name, MountPath, SubPath string
		} `json:"volumeMounts"`
	}
	deployment struct {
		Metadata struct{ Name string } `json:"metadata"`
		Spec     struct {
			Template struct {
				Metadata struct {
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
				Spec struct {
					TerminationGracePeriodSeconds int   `json:"terminationGracePeriodSeconds"`
					EnableServiceLinks            *bool `json:"enableServiceLinks"`
					SecurityContext               struct {
						RunAsNonRoot *bool `json:"runAsNonRoot"`
						RunAsUser    int   `json:"runAsUser"`
					} `json:"securityContext"`
					Containers []container `json:"containers"`
					Volumes    []struct {
						Name      string
						ConfigMap *struct{ Name string } `json:"configMap"`
						Secret    *struct {
							SecretName string `json:"secretName"`
						} `json:"secret"`
					} `json:"volumes"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
)

// read decodes the manifest name of deploy/kubernetes into v.
func read(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestManifestsFacts checks what the manifests promise an operator:
// probes on the admin listener, a non-root pod on a read-only root, a
// grace period longer than the host's drain, settings the host accepts
// without a development key, the key set mounted where the settings look
// for it, no real key in the Secret, and an HPA on the Deployment's CPU.
func TestManifestsFacts(t *testing.T) {
	var d deployment
	read(t, "deployment.yaml", &d)
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("deployment.yaml: %d containers, want the host alone", len(pod.Containers))
	}
	c := pod.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	flag := func(name string) string {
		i := slices.Index(c.Args, name)
		if i < 0 || i+1 >= len(c.Args) {
			return ""
		}
		return c.Args[i+1]
	}
	if ports["admin"] == 0 || flag("--admin-addr") != ":"+strconv.Itoa(ports["admin"]) || ports["http"] == 0 || flag("--addr") != ":"+strconv.Itoa(ports["http"]) {
		t.Errorf("deployment.yaml: args %q and ports %v disagree: want --addr on the port named http, --admin-addr on the one named admin", c.Args, ports)
	}
	for _, p := range []struct {
		name  string
		probe *probe
		path  string
	}{{"readinessProbe", c.ReadinessProbe, "/readyz"}, {"livenessProbe", c.LivenessProbe, "/livez"}} {
		if p.probe == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port != "admin" {
			t.Errorf("deployment.yaml: %s %+v, want GET %s on the admin port", p.name, p.probe, p.path)
		}
	}
	if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" {
		t.Errorf("deployment.yaml: requests %v, want cpu (the HPA's utilization is of it) and memory", c.Resources.Requests)
	}
	sc := pod.SecurityContext
	if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser != 65532 {
		t.Errorf("deployment.yaml: the pod's securityContext %+v, want runAsNonRoot as 65532 (the image's nonroot)", sc)
	}
	if p := c.SecurityContext; p.ReadOnlyRootFilesystem == nil || !*p.ReadOnlyRootFilesystem || p.AllowPrivilegeEscalation == nil || *p.AllowPrivilegeEscalation {
		t.Errorf("deployment.yaml: the container's securityContext, want readOnlyRootFilesystem and no privilege escalation")
	}
	if pod.EnableServiceLinks == nil || *pod.EnableServiceLinks {
		t.Error("deployment.yaml: enableServiceLinks, want false")
	}

	// The settings: the ConfigMap's endpoints.json under the pod's
	// variables, as the host reads them.
	var cm struct {
		Metadata struct{ Name string }
		Data     map[string]string
	}
	read(t, "configmap.yaml", &cm)
	var secret struct {
		Metadata   struct{ Name string }
		StringData map[string]string `json:"stringData"`
	}
	read(t, "secret.yaml", &secret)
	var env []string
	for _, e := range c.Env {
		value := e.Value
		if e.ValueFrom != nil {
			var from struct {
				SecretKeyRef struct{ Name, Key string } `json:"secretKeyRef"`
			}
			if err := json.Unmarshal(e.ValueFrom, &from); err != nil || from.SecretKeyRef.Name != secret.Metadata.Name {
				t.Errorf("deployment.yaml: %s comes from %s, want the Secret %s (%v)", e.Name, e.ValueFrom, secret.Metadata.Name, err)
			}
			v, ok := secret.StringData[from.SecretKeyRef.Key]
			if !ok {
				t.Errorf("deployment.yaml: %s reads the key %q the Secret does not have", e.Name, from.SecretKeyRef.Key)
			}
			value = v // the placeholder, shaped as the real value
		}
		if strings.HasPrefix(e.Name, "ENDPOINTS_") {
			env = append(env, e.Name+"="+value)
		}
	}
	values, warnings := config.OverridesFromEnv(env)
	if len(warnings) > 0 {
		t.Errorf("deployment.yaml: %s", strings.Join(warnings, "; "))
	}
	app, err := config.Parse("configmap.yaml endpoints.json", []byte(cm.Data["endpoints.json"]), values...)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(app.Security)
	if strings.Contains(string(raw), "devKey") {
		t.Error("configmap.yaml: endpoints.json names a devKey: the deployment must verify with its own keys")
	}
	var bearer struct {
		JWT struct{ JWKS string } `json:"jwt"`
	}
	if err := json.Unmarshal(app.Security["bearer"], &bearer); err != nil || bearer.JWT.JWKS == "" {
		t.Fatalf("configmap.yaml: security.bearer.jwt.jwks: %v", err)
	}
	example, err := config.Load(filepath.Join("..", "..", "examples", "users"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(example.Security["bearer"]), `"`+bearer.JWT.JWKS+`"`) {
		t.Errorf("configmap.yaml: security.bearer.jwt.jwks %s is the example's development key set in the image: name the Secret's file beside it, so that a missing mount fails rather than falling back on the development keys", bearer.JWT.JWKS)
	}
	drain := time.Duration(app.Server.ShutdownTimeout)
	if drain == 0 {
		drain = config.DefaultShutdownTimeout
	}
	if grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second; grace <= drain+time.Duration(c.Lifecycle.PreStop.Sleep.Seconds)*time.Second {
		t.Errorf("deployment.yaml: terminationGracePeriodSeconds %v, want more than the preStop pause (%ds) and the drain (%v)", grace, c.Lifecycle.PreStop.Sleep.Seconds, drain)
	}
	mounts := map[string]string{} // mount path → volume
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	// The key set's directory is mounted, not the file by subPath: a
	// rotated Secret reaches a subPath mount only with a restart, while
	// the host reads a key set file again when it changes.
	keysDir := "/app/" + path.Dir(bearer.JWT.JWKS)
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/app/"+bearer.JWT.JWKS {
			t.Errorf("deployment.yaml: /app/%s (security.bearer.jwt.jwks) is mounted as a file (subPath %q): a rotated Secret never reaches it; mount the Secret as a directory of its own (/app/auth/deployment, the ConfigMap naming auth/deployment/jwks.json)", bearer.JWT.JWKS, m.SubPath)
		}
		if m.MountPath == keysDir && m.SubPath != "" {
			t.Errorf("deployment.yaml: %s mounts subPath %q: a rotated Secret never reaches it; mount the volume whole", keysDir, m.SubPath)
		}
	}
	volumes := map[string]string{} // volume → ConfigMap or Secret name
	for _, v := range pod.Volumes {
		switch {
		case v.ConfigMap != nil:
			volumes[v.Name] = "configmap/" + v.ConfigMap.Name
		case v.Secret != nil:
			volumes[v.Name] = "secret/" + v.Secret.SecretName
		}
	}
	if got := volumes[mounts["/app/endpoints.json"]]; got != "configmap/"+cm.Metadata.Name {
		t.Errorf("deployment.yaml: /app/endpoints.json mounts %q, want the ConfigMap %s", got, cm.Metadata.Name)
	}
	if got := volumes[mounts[keysDir]]; got != "secret/"+secret.Metadata.Name {
		t.Errorf("deployment.yaml: %s (the directory of security.bearer.jwt.jwks) mounts %q, want the Secret %s", keysDir, got, secret.Metadata.Name)
	}
	var jwks struct{ Keys []json.RawMessage }
	if err := json.Unmarshal([]byte(secret.StringData["jwks.json"]), &jwks); err != nil || len(jwks.Keys) != 0 {
		t.Errorf("secret.yaml: jwks.json holds %d keys (%v): the committed Secret is a placeholder, never a key", len(jwks.Keys), err)
	}

	var hpa struct {
		Spec struct {
			ScaleTargetRef struct{ Kind, Name string } `json:"scaleTargetRef"`
			Metrics        []struct {
				Resource struct{ Name string } `json:"resource"`
			} `json:"metrics"`
		} `json:"spec"`
	}
	read(t, "hpa.yaml", &hpa)
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Metadata.Name || len(hpa.Spec.Metrics) != 1 || hpa.Spec.Metrics[0].Resource.Name != "cpu" {
		t.Errorf("hpa.yaml: %+v, want the Deployment %s scaled on CPU", hpa.Spec, d.Metadata.Name)
	}
	var svc struct {
		Spec struct {
			Selector map[string]string
			Ports    []struct {
				TargetPort any `json:"targetPort"`
			}
		}
	}
	read(t, "service.yaml", &svc)
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("service.yaml: the selector %s=%s selects no pod of the Deployment", k, v)
		}
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != "http" {
		t.Errorf("service.yaml: ports %+v, want the pods' http port alone (the admin port stays off the Service)", svc.Spec.Ports)
	}
}
