// Package kubernetes holds the tests of deploy/kubernetes: the manifests
// validated by kubeconform against Kubernetes' own schemas (made offline
// from the OpenAPI document of the module k8s.io/kubernetes), and the
// facts they promise checked against the app's settings. It is a module
// of its own so that the main go.mod does not carry kubeconform.
package kubernetes
