package scenario

// Kubernetes describes the cluster the kubernetes provider deploys to.
type Kubernetes struct {
	// Kubeconfig is the cluster's kubeconfig file: "" is $KUBECONFIG,
	// else ~/.kube/config.
	Kubeconfig string `toml:"kubeconfig"`
	// Context is the kubeconfig context ("" its current one).
	Context string `toml:"context"`
	// Namespace is "" for a namespace per testnet (chainperf-ID, deleted
	// at the end), else one that exists, where chainperf deletes only
	// what it made (by its testnet label).
	Namespace string `toml:"namespace"`
	// Registry, if set, is where the node image is pushed
	// ("registry.example.com/team/chainperf"); pods pull it from there.
	Registry string `toml:"registry"`
	// Containerd, if set, is the containerd socket of a one-machine
	// cluster on this host (several, comma-separated, for each of its
	// nodes): the image is imported there and never pulled.
	// "" with no registry is $CHAINPERF_KUBE_CTR.
	Containerd string `toml:"containerd"`
	// ZoneLabel is the node label that names a zone: nodes of a zone
	// (testnet.zones) run on the cluster nodes with that label value, so
	// the latency between them is the cluster's own.
	ZoneLabel string `toml:"zone_label"`
	// Resources per role: requests and limits of each node's pod.
	Validator Resources `toml:"validator"`
	Full      Resources `toml:"full"`
	Generator Resources `toml:"generator"` // generator pods (load.generators > 1)
	// Ready is how long a pod may take to be scheduled and run.
	Ready Duration `toml:"ready_timeout"`
	// StorageClass, if set, makes each node's home a PersistentVolumeClaim
	// of that class, StorageSize each: a restarted pod keeps its data.
	StorageClass string `toml:"storage_class"`
	StorageSize  string `toml:"storage_size"`
	// Reach is how the harness reaches the nodes' RPC, metrics, pprof and
	// fault agents: ReachPods or ReachAPI.
	Reach string `toml:"reach"`
	// Harness is where chainperf's harness runs: HarnessHere (where
	// `chainperf run` is) or HarnessPod (a Job's pod in Namespace, its
	// results brought back into the caller's database).
	Harness string `toml:"harness"`
}

// Where a Kubernetes run's harness runs.
const (
	HarnessHere = "here"
	HarnessPod  = "pod"
)

// How the harness reaches a cluster's pods.
const (
	// ReachPods: at their pod IPs, which route from where chainperf runs
	// (on the cluster's machine, or in a pod).
	ReachPods = "pods"
	// ReachAPI: through the API server's port-forward, from a machine
	// outside the cluster that reaches only the API server.
	ReachAPI = "api"
)

// Resources are a pod's CPU and memory requests and limits, in
// Kubernetes quantities ("500m", "1", "512Mi"); "" is none.
type Resources struct {
	CPU         string `toml:"cpu"`
	Memory      string `toml:"memory"`
	CPULimit    string `toml:"cpu_limit"`
	MemoryLimit string `toml:"memory_limit"`
}
