// Package kubernetes is the kubernetes provider: each node of the testnet
// is a pod in a cluster reached by kubeconfig (client-go; no kubectl). A
// node's files (config, genesis) come from a ConfigMap and its keys from a
// Secret; the pod copies them into its own home (`chainperf pod`) and runs
// the embedded node from chainperf's own image. Pods get their addresses
// only once they run, so the configs name no peers: after a node starts the
// provider reads its pod IP from the API and dials its peers through the
// node's RPC (dial_peers). Every object carries the testnet's label; the
// namespace is the testnet's own unless the scenario gives one.
package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/chainperf/chainperf/internal/kube/agent"
	"github.com/chainperf/chainperf/internal/kube/image"
	"github.com/chainperf/chainperf/internal/latency"
	"github.com/chainperf/chainperf/internal/netem"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// Labels on everything chainperf makes in a cluster.
const (
	LabelManaged = "app.kubernetes.io/managed-by" // = "chainperf"
	LabelTestnet = "chainperf.io/testnet"         // the testnet ID
	LabelNode    = "chainperf.io/node"            // the node's name
	LabelRole    = "chainperf.io/role"
	// LabelRegistry names the registry of the harness that made it
	// (testnet.RegistryKey): `chainperf clean --all` elsewhere leaves it be.
	LabelRegistry = "chainperf.io/registry"
)

// In the pod: where the node's files are mounted and its home.
const (
	filesDir = "/node/files"
	keysDir  = "/node/keys"
	homeDir  = "/node/home"
)

// CtrEnv names the containerd socket of a local cluster when the scenario
// gives neither a registry nor a socket (kube/localcluster/up.sh prints it).
const CtrEnv = "CHAINPERF_KUBE_CTR"

var (
	_ testnet.Killer        = (*Provider)(nil)
	_ testnet.Pauser        = (*Provider)(nil)
	_ testnet.Disconnecter  = (*Provider)(nil)
	_ testnet.Partitioner   = (*Provider)(nil)
	_ testnet.LatencyShaper = (*Provider)(nil)
)

// Provider runs a testnet's nodes as pods.
type Provider struct {
	net    *testnet.Testnet
	spec   scenario.Kubernetes
	zones  map[string]string
	cs     kubernetes.Interface
	ns     string
	ownNS  bool // the namespace is the testnet's: Close deletes it
	exe    string
	log    *slog.Logger
	image  string
	pullNo bool // imported into the node's containerd: never pulled

	dryRun bool
	files  map[string]nodeFiles // each node's ConfigMap and Secret, as made
	// The emulated WAN (nil: none): the delays each pod's agent applies,
	// by node index; base is the plan the testnet started with.
	base *netem.Plan
	wan  *netem.WAN

	mu      sync.Mutex
	running map[string]bool // started by the harness and not stopped or killed since
	jobs    int             // generator jobs made
	plan    *netem.Plan     // the delays in force
	checked int             // objects the API server accepted in a dry run

	// fwd carries the harness's connections through the API server
	// (reach = "api"); nil when pod IPs route from here.
	fwd *forwarder
}

// nodeFiles are the names of a node's ConfigMap and Secret and the path
// in the home of each of their keys.
type nodeFiles struct {
	cm, sec     string
	files, keys []corev1.KeyToPath
}

// Config loads the cluster's client config: the scenario's kubeconfig,
// else $KUBECONFIG, else ~/.kube/config.
func Config(k scenario.Kubernetes) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if k.Kubeconfig != "" {
		rules.ExplicitPath = k.Kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no Kubernetes cluster to run on (%v): set KUBECONFIG or testnet.kubernetes.kubeconfig", err)
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return retryLost{next: rt} })
	return cfg, nil
}

// Preflight says, before anything is made, what stops the provider: no
// kubeconfig, a cluster that does not answer, rights the kubeconfig lacks
// (each named), a namespace whose pod security refuses the nodes' pods, a
// storage class the cluster has not, no way to deliver the image.
func Preflight(spec scenario.Testnet, _ testnet.ProviderOptions) error {
	k := spec.Kubernetes
	cfg, err := Config(k)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// What the testnet needs first: to make its namespace, or to work in
	// the one given (kube/rbac has the Roles for each).
	if k.Namespace == "" {
		if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return fmt.Errorf("the Kubernetes cluster at %s does not answer (%v): is it up, and may this kubeconfig list namespaces (kube/rbac/clusterrole.yaml)?", cfg.Host, err)
		}
	} else if _, err := cs.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("the Kubernetes cluster at %s does not answer (%v): is it up, and may this kubeconfig list pods in namespace %s (kube/rbac/role.yaml)?", cfg.Host, err, k.Namespace)
	}
	missing, err := missingRights(ctx, cs, k)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		role := "kube/rbac/clusterrole.yaml (a namespace per testnet)"
		if k.Namespace != "" {
			role = "kube/rbac/role.yaml in namespace " + k.Namespace
		}
		return fmt.Errorf("this kubeconfig may not %s on the cluster at %s: %s grants what chainperf needs", strings.Join(missing, ", "), cfg.Host, role)
	}
	if why := podSecurity(ctx, cs, k.Namespace); why != "" {
		return errors.New(why)
	}
	if k.StorageClass != "" {
		// A Role in one namespace may not read classes: then the claims'
		// binding says it.
		if _, err := cs.StorageV1().StorageClasses().Get(ctx, k.StorageClass, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return fmt.Errorf("testnet.kubernetes.storage_class %q: the cluster at %s has no such storage class (`kubectl get storageclass` lists those it has)", k.StorageClass, cfg.Host)
		}
	}
	if k.Registry == "" && ctrSocket(k) == "" && os.Getenv(ImageEnv) == "" {
		return errors.New("no way to get the node image to the cluster: set testnet.kubernetes.registry (a registry its nodes pull from) or testnet.kubernetes.containerd (a one-machine cluster's containerd socket, or $" + CtrEnv + ")")
	}
	return nil
}

func ctrSocket(k scenario.Kubernetes) string {
	if k.Containerd != "" {
		return k.Containerd
	}
	if k.Registry == "" {
		return os.Getenv(CtrEnv)
	}
	return ""
}

// New makes the provider for t. Nodes listen on every address of their
// pod; their hosts are the pods' IPs once they run.
func New(t *testnet.Testnet, spec scenario.Testnet, table *latency.Table, o testnet.ProviderOptions) (*Provider, error) {
	cfg, err := Config(spec.Kubernetes)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Provider{net: t, spec: spec.Kubernetes, zones: spec.ZoneOf(), cs: cs, exe: o.Exe, log: log, running: map[string]bool{},
		dryRun: o.DryRun, files: map[string]nodeFiles{}}
	p.ns, p.ownNS = spec.Kubernetes.Namespace, spec.Kubernetes.Namespace == ""
	if p.ownNS {
		p.ns = testnet.ClusterNamespace(t.ID)
	}
	if spec.EmulatedWAN() {
		plan, wan, err := testnet.WANPlan(spec, t, table)
		if err != nil {
			return nil, err
		}
		wan.Backend = "nfqueue"
		p.base, p.plan, p.wan = plan, plan, wan
	}
	t.Cluster = &testnet.Cluster{Kubeconfig: spec.Kubernetes.Kubeconfig, Context: spec.Kubernetes.Context, Namespace: p.ns, OwnNamespace: p.ownNS}
	for _, n := range t.Nodes {
		n.Host = "0.0.0.0"
	}
	t.DialPeers = true
	if spec.Kubernetes.Reach == scenario.ReachAPI {
		p.fwd = newForwarder(cfg, cs, p.ns, log)
		for _, n := range t.Nodes {
			if err := p.fwd.listen(podName(n), n.Ports.RPC, n.Ports.Metrics, n.Ports.Pprof, agentPort(n)); err != nil {
				p.fwd.close()
				return nil, err
			}
		}
	}
	return p, nil
}

// Name is "kubernetes".
func (p *Provider) Name() string { return scenario.ProviderKubernetes }

func (p *Provider) labels(n *testnet.Node) map[string]string {
	l := map[string]string{LabelManaged: "chainperf", LabelTestnet: p.net.ID, LabelRegistry: testnet.RegistryKey()}
	if n != nil {
		l[LabelNode] = n.Name
		l[LabelRole] = string(n.Role)
	}
	return l
}

// create is the options of every Create: in a dry run the API server
// checks the object (schema, admission, quotas) and keeps nothing.
func (p *Provider) create() metav1.CreateOptions {
	if p.dryRun {
		p.mu.Lock()
		p.checked++
		p.mu.Unlock()
		return metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	}
	return metav1.CreateOptions{}
}

// DryRunChecked is how many objects the API server checked in a dry run.
func (p *Provider) DryRunChecked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.checked
}

// Open makes the namespace, delivers the node image and writes each node's
// files into its ConfigMap and Secret. On error it removes what it made.
func (p *Provider) Open(ctx context.Context) (err error) {
	made := false // the namespace (or objects in the given one): Close removes them
	defer func() {
		if err != nil && made {
			_ = p.Close(context.WithoutCancel(ctx))
		}
	}()
	if p.ownNS {
		labels := p.labels(nil)
		// NET_ADMIN (the fault agent) is beyond the "baseline" pod
		// security level a cluster may enforce by default.
		labels["pod-security.kubernetes.io/enforce"] = "privileged"
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.ns, Labels: labels}}
		// One that exists already (AlreadyExists) is not ours to remove.
		if _, err := p.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !madeBefore(ctx, err, p.labels(nil),
			func(ctx context.Context) (metav1.Object, error) {
				return p.cs.CoreV1().Namespaces().Get(ctx, p.ns, metav1.GetOptions{})
			}) {
			return fmt.Errorf("create namespace %s: %w", p.ns, err)
		}
	} else if _, err := p.cs.CoreV1().Pods(p.ns).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("namespace %s (testnet.kubernetes.namespace): %w", p.ns, err)
	}
	made = true
	if err := p.deliverImage(ctx); err != nil {
		return err
	}
	if p.dryRun {
		p.log.Info("dry run: the API server checks every object and keeps none", "namespace", p.ns)
	}
	for _, n := range p.net.Nodes {
		if err := p.writeFiles(ctx, n); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		if err := p.claimHome(ctx, n); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
	}
	return nil
}

func (p *Provider) deliverImage(ctx context.Context) error {
	start := time.Now()
	ref, never, err := deliver(ctx, p.spec, p.exe, p.net.Binary, p.dryRun)
	if err != nil {
		return err
	}
	p.image, p.pullNo = ref, never
	p.log.Info("node image ready", "image", ref, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// deliver builds the node image (chainperf's exe, and a chain's binary)
// and pushes it to the registry or imports it into the one-machine
// cluster's containerd (then pods never pull it: never). In a harness
// pod (ImageEnv set) the caller delivered it: that image, none built.
func deliver(ctx context.Context, k scenario.Kubernetes, exe, chain string, dryRun bool) (ref string, never bool, err error) {
	if ref := os.Getenv(ImageEnv); ref != "" && chain == "" {
		return ref, false, nil
	}
	repo := image.LocalRepo
	if k.Registry != "" {
		repo = k.Registry
	}
	im, err := image.Build(exe, repo, chain)
	if err != nil {
		return "", false, err
	}
	if socks := ctrSocket(k); socks != "" {
		// A one-machine cluster of several nodes: every node's containerd.
		never = true
		for _, sock := range strings.Split(socks, ",") {
			if err != nil || dryRun {
				break
			}
			err = im.Import(ctx, sock)
		}
	} else if !dryRun {
		err = im.Push(ctx)
	}
	return im.Ref, never, err
}

// maxFiles is what a node's files may take in its ConfigMap: the API
// server refuses objects over 1 MiB, keys and metadata included.
const maxFiles = 1000 << 10

// secretFiles are the files of a home that go into the node's Secret.
var secretFiles = []string{"node_key.json", "priv_validator_key.json"}

// writeFiles puts every file of n's home into its ConfigMap (keys into its
// Secret), each with its path in the home.
func (p *Provider) writeFiles(ctx context.Context, n *testnet.Node) error {
	cm := &corev1.ConfigMap{ObjectMeta: p.meta(n, "-files"), Data: map[string]string{}}
	sec := &corev1.Secret{ObjectMeta: p.meta(n, "-keys"), Data: map[string][]byte{}}
	var fileItems, keyItems []corev1.KeyToPath
	err := filepath.WalkDir(n.Home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(n.Home, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// Keys are numbers (a key cannot hold '/'); each item says the
		// file's path in the home.
		if slices.Contains(secretFiles, d.Name()) {
			key := fmt.Sprintf("f%d", len(keyItems))
			sec.Data[key] = data
			keyItems = append(keyItems, corev1.KeyToPath{Key: key, Path: rel})
		} else {
			key := fmt.Sprintf("f%d", len(fileItems))
			cm.Data[key] = string(data)
			fileItems = append(fileItems, corev1.KeyToPath{Key: key, Path: rel})
		}
		return nil
	})
	if err != nil {
		return err
	}
	size := 0
	for _, v := range cm.Data {
		size += len(v)
	}
	if size > maxFiles {
		return fmt.Errorf("its files take %d KiB, more than a ConfigMap holds (1 MiB): the genesis is too large for the kubernetes provider (fewer wallets)", size>>10)
	}
	if _, err := p.cs.CoreV1().ConfigMaps(p.ns).Create(ctx, cm, p.create()); err != nil && !madeBefore(ctx, err, cm.Labels,
		func(ctx context.Context) (metav1.Object, error) {
			return p.cs.CoreV1().ConfigMaps(p.ns).Get(ctx, cm.Name, metav1.GetOptions{})
		}) {
		return fmt.Errorf("create configmap %s: %w", cm.Name, err)
	}
	if _, err := p.cs.CoreV1().Secrets(p.ns).Create(ctx, sec, p.create()); err != nil && !madeBefore(ctx, err, sec.Labels,
		func(ctx context.Context) (metav1.Object, error) {
			return p.cs.CoreV1().Secrets(p.ns).Get(ctx, sec.Name, metav1.GetOptions{})
		}) {
		return fmt.Errorf("create secret %s: %w", sec.Name, err)
	}
	p.files[n.Name] = nodeFiles{cm: cm.Name, sec: sec.Name, files: fileItems, keys: keyItems}
	return nil
}

func (p *Provider) meta(n *testnet.Node, suffix string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: podName(n) + suffix, Namespace: p.ns, Labels: p.labels(n)}
}

// podName is the node's name as a Kubernetes name (validator0, full0).
func podName(n *testnet.Node) string { return strings.ToLower(n.Name) }

// Start creates each node's pod, waits until each runs and answers, sets
// the node's host to its pod IP and dials its peers.
func (p *Provider) Start(ctx context.Context, nodes ...*testnet.Node) error {
	for _, n := range nodes {
		p.mu.Lock()
		running := p.running[n.Name]
		p.mu.Unlock()
		if running {
			return fmt.Errorf("start %s: already running", n.Name)
		}
		if p.fwd != nil {
			p.fwd.forget(podName(n)) // a pod made again is another pod
		}
		if err := p.createPod(ctx, n); err != nil {
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
		if p.dryRun {
			continue
		}
		p.mu.Lock()
		p.running[n.Name] = true
		p.mu.Unlock()
	}
	if p.dryRun {
		return nil
	}
	for _, n := range nodes {
		ip, err := p.waitReady(ctx, n)
		if err != nil {
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
		n.Host = ip
		p.log.Info("node started", "node", n.Name, "pod", p.ns+"/"+podName(n), "ip", ip)
	}
	for _, n := range nodes {
		if err := p.dialPeers(ctx, n); err != nil {
			var op *net.OpError
			if p.fwd == nil && errors.As(err, &op) && op.Op == "dial" {
				// The first call from here to a pod: say what to do if
				// pod IPs do not route here.
				err = fmt.Errorf("%w (where pod IPs do not route from this machine, set testnet.kubernetes.reach = %q: through the API server)", err, scenario.ReachAPI)
			}
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
	}
	// New pods have new addresses: every pod's delays again.
	return p.pushDelays(ctx)
}

// RTT is how long a TCP connect from from's pod to to's p2p port takes
// (the handshake's round trip, emulated delays included), as from's agent
// measures it.
func (p *Provider) RTT(ctx context.Context, from, to *testnet.Node) (time.Duration, error) {
	return p.agent(from).RTT(ctx, net.JoinHostPort(to.Host, strconv.Itoa(to.Ports.P2P)))
}

// WAN is the emulated WAN's record (nil: none).
func (p *Provider) WAN() *netem.WAN { return p.wan }

// pushDelays gives each running pod's agent the delays of the plan in
// force from the other running pods, by their current IPs (the agent
// delays what arrives: agent/delay.go says why).
func (p *Provider) pushDelays(ctx context.Context) error {
	p.mu.Lock()
	plan, running := p.plan, maps.Clone(p.running)
	p.mu.Unlock()
	if plan == nil {
		return nil
	}
	return each(p.net.Nodes, func(n *testnet.Node) error {
		i := p.net.Index(n)
		if !running[n.Name] {
			return nil
		}
		links := map[string]netem.Link{}
		for j, m := range p.net.Nodes {
			if j != i && running[m.Name] {
				links[m.Host] = plan.Links[j][i]
			}
		}
		return p.agent(n).Post(ctx, "/delay", agent.DelayRequest{Links: links, Bandwidth: plan.Bandwidth})
	})
}

// ScaleLatency multiplies the delays of the links that touch nodes (all
// when none) by scale.
func (p *Provider) ScaleLatency(ctx context.Context, scale float64, nodes ...*testnet.Node) error {
	if p.base == nil {
		return errors.New("a latency change scales the emulated WAN's delays, and there is none")
	}
	var only map[int]bool
	for _, n := range nodes {
		if only == nil {
			only = map[int]bool{}
		}
		only[p.net.Index(n)] = true
	}
	p.mu.Lock()
	p.plan = p.base.Scaled(scale, only)
	p.mu.Unlock()
	return p.pushDelays(ctx)
}

// RestoreLatency puts back the delays the testnet started with.
func (p *Provider) RestoreLatency(ctx context.Context) error {
	p.mu.Lock()
	p.plan = p.base
	p.mu.Unlock()
	return p.pushDelays(ctx)
}

// AgentPort is where the fault agent listens in each node's pod: below
// every port a testnet uses (testnet.base_port is 1024 or more), so it
// clashes with none of a node's, whatever the chain.
const AgentPort = 1023

// Endpoint is where the harness reaches n: its pod's IP where pod IPs
// route from here (on the cluster's machine or in a pod), else (reach =
// "api") local addresses forwarded through the API server. Peers reach
// it at its pod IP either way.
func (p *Provider) Endpoint(n *testnet.Node) testnet.Endpoint {
	e := n.Endpoint()
	if p.fwd == nil {
		return e
	}
	pod := podName(n)
	e.RPC = "http://" + p.fwd.addr(pod, n.Ports.RPC)
	e.Metrics = "http://" + p.fwd.addr(pod, n.Ports.Metrics) + "/metrics"
	e.Pprof = "http://" + p.fwd.addr(pod, n.Ports.Pprof) + "/debug/pprof"
	return e
}

// Exited reports a node the harness started whose pod ended or vanished
// by itself.
func (p *Provider) Exited(n *testnet.Node) (error, bool) {
	p.mu.Lock()
	running := p.running[n.Name]
	p.mu.Unlock()
	if !running {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pod, err := p.cs.CoreV1().Pods(p.ns).Get(ctx, podName(n), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("pod %s/%s was deleted by someone else", p.ns, podName(n)), true
	}
	if err != nil {
		return nil, false // the API did not answer: not a finding about the node
	}
	if pod.DeletionTimestamp != nil {
		return fmt.Errorf("pod %s/%s is being deleted by someone else", p.ns, pod.Name), true
	}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return fmt.Errorf("pod %s/%s ended: %s", p.ns, pod.Name, p.podProblem(ctx, pod)), true
	}
	return nil, false
}

// Close deletes everything the provider made: the testnet's namespace
// (and waits until it is gone), or in a given namespace the testnet's
// pods, ConfigMaps and Secrets by label.
func (p *Provider) Close(ctx context.Context) error {
	p.mu.Lock()
	p.running = map[string]bool{}
	p.mu.Unlock()
	if p.fwd != nil {
		p.fwd.close()
	}
	return remove(ctx, p.cs, *p.net.Cluster, p.net.ID)
}
