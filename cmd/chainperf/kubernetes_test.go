package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/chainperf/chainperf/internal/load"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes/kubetest"
)

// TestKubernetes runs the kubernetes provider's command tests one after
// another, in one test that runs beside the other tests that call
// t.Parallel: each counts the cluster's chainperf namespaces before and
// after, so two of them at once would count each other's.
func TestKubernetes(t *testing.T) {
	kubetest.Cluster(t)
	t.Parallel()
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"Run", kubernetesRun},
		{"Cleanup", kubernetesCleanup},
		{"DryRun200", kubernetesDryRun200},
		{"RBACRole", kubernetesRBACRole},
		{"Chains", kubernetesChains},
		{"HarnessInAPod", kubernetesHarnessInAPod},
		{"HomeKeptOnItsVolume", kubernetesHomeKeptOnItsVolume},
	} {
		t.Run(c.name, c.test)
	}
}

// chainperfNamespaces lists the namespaces chainperf made in the cluster.
func chainperfNamespaces(t *testing.T, cs k8s.Interface) []string {
	t.Helper()
	list, err := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{LabelSelector: kubernetes.LabelManaged + "=chainperf"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ns := range list.Items {
		out = append(out, ns.Name)
	}
	return out
}

// kubernetesRun: 4 validators and a full node as pods of a real
// cluster, 10 ms emulated between every two pods, 20 s of load; a
// validator's pod is killed (deleted) and comes back, a 2|2 partition
// stops the chain until it heals. Every tx gets its fate (the
// conservation law, none unresolved), the run records its WAN, it is
// stored and reported, and nothing of the testnet is left in the cluster.
func kubernetesRun(t *testing.T) {
	cs := kubetest.Cluster(t)
	before := chainperfNamespaces(t, cs)
	tmp := t.TempDir()
	reg, db, reports := t.TempDir(), filepath.Join(tmp, "runs.db"), filepath.Join(tmp, "reports")
	scn := filepath.Join(tmp, "k8s.toml")
	os.WriteFile(scn, []byte(besideOthers(`name = "k8s"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
uniform_delay = "10ms"
[load]
rate = 100
duration = "20s"
[experiment]
kind = "steady"
warmup = "1s"
drain_timeout = "30s"
[criteria]
max_unresolved = 0
[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "3s"
duration = "5s"
[[perturbation]]
kind = "partition"
groups = [["validator0", "validator1", "full0"], ["validator2", "validator3"]]
at = "11s"
duration = "6s"
`)), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", db, "--report-dir", reports)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	r := readSummary(t, reports)
	at := map[string]time.Time{}
	for _, e := range r.Events {
		what, _, _ := strings.Cut(e.Detail, " ")
		if at[what].IsZero() {
			at[what] = e.At
		}
	}
	for _, want := range []string{"kill", "start", "partition", "heal"} {
		if at[want].IsZero() {
			t.Fatalf("events %+v; want kill, start, partition, heal", r.Events)
		}
	}
	p := r.Main()
	if s := p.Ledger; !s.Balanced() || s.Sent != 2000 || s.Fates[load.FateUnresolved] != 0 || s.Fates[load.FateCommitted] == 0 {
		t.Errorf("ledger %+v: want 2000 sent, every one with its fate", s)
	}
	var inSplit, afterHeal int
	for _, b := range p.Blocks {
		switch {
		case b.Seen.After(at["partition"].Add(2*time.Second)) && b.Seen.Before(at["heal"]):
			inSplit++
		case b.Seen.After(at["heal"]):
			afterHeal++
		}
	}
	if inSplit != 0 || afterHeal == 0 {
		t.Errorf("blocks: %d during the 2|2 split (want 0), %d after the heal (want some)", inSplit, afterHeal)
	}
	explained(t, &r, true) // pods say where the time went too
	if w := r.Setup.WAN; w == nil || w.Backend != "nfqueue" || w.UniformMS != 10 {
		t.Errorf("the run's WAN %+v; want 10 ms uniform, nfqueue in the pods", w)
	}
	if len(r.Faults) != 2 || r.Faults[0].CatchUp <= 0 {
		t.Errorf("faults %+v; want the kill with the pod back at the tip, then the partition", r.Faults)
	}
	if out, code := cli(t, reg, "runs", "show", r.ID, "--db", db); code != 0 || !strings.Contains(out, "committed") {
		t.Errorf("runs show: exit %d\n%s", code, out)
	}
	// A pod's whole log is kept, read through the API: its start (the
	// node's first lines) as well as its end; the last 50 lines were all
	// before.
	if out, code := cli(t, reg, "runs", "logs", r.ID, "--node", "validator0", "--db", db); code != 0 || strings.Count(out, "\n") <= 50 {
		t.Errorf("runs logs of a pod: exit %d, %d lines; want its whole log\n%.2000s", code, strings.Count(out, "\n"), out)
	}
	if _, err := os.Stat(filepath.Join(reports, r.ID, "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
	if now := chainperfNamespaces(t, cs); len(now) != len(before) {
		t.Errorf("namespaces after the run: %v; before: %v", now, before)
	}
}

// kubernetesCleanup: Ctrl-C of `testnet up` on a cluster deletes the
// testnet's namespace; after a SIGKILL of the harness, `chainperf clean`
// does (its state file says where the pods are), and with the state file
// gone too, `chainperf clean --all` finds the namespace by its labels.
func kubernetesCleanup(t *testing.T) {
	cs := kubetest.Cluster(t)
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		clean []string
	}{{"interrupt", syscall.SIGINT, nil}, {"killed", syscall.SIGKILL, []string{"clean"}}, {"unregistered", syscall.SIGKILL, []string{"clean", "--all"}}} {
		sig := c.sig
		t.Run(c.name, func(t *testing.T) {
			before := chainperfNamespaces(t, cs)
			reg := t.TempDir()
			cmd, dir := upForeground(t, reg, "[testnet]\nprovider = \"kubernetes\"\nvalidators = 2\nfull_nodes = 0\n")
			if now := chainperfNamespaces(t, cs); len(now) != len(before)+1 {
				t.Fatalf("namespaces while the testnet runs: %v (before: %v)", now, before)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			if c.name == "unregistered" {
				t.Cleanup(func() { os.RemoveAll(dir) }) // its state is gone: nothing else knows the dir
				entries, _ := filepath.Glob(filepath.Join(reg, "*.json"))
				for _, e := range append(entries, filepath.Join(dir, "testnet.json")) {
					os.Remove(e)
				}
			}
			if c.clean != nil {
				if out, code := cli(t, reg, c.clean...); code != 0 || !strings.Contains(out, "removed testnet") {
					t.Errorf("%v: exit %d\n%s", c.clean, code, out)
				}
			}
			if now := chainperfNamespaces(t, cs); len(now) != len(before) {
				t.Errorf("namespaces left: %v (before: %v)", now, before)
			}
		})
	}
}

// TestKubernetesThroughTheAPIServer: a harness that reaches only the API
// server (its group's packets to the local cluster's pod network are
// rejected). With reach = "pods" it fails at the first node it calls;
// with reach = "api" the same run passes: the nodes' RPC, metrics, pprof
// and fault agents through port-forwards, a validator killed (its pod
// made again) and one paused (by its agent), and the load spread over 2
// generator pods (a Job), each with its own ledger and block follower:
// merged, every one of the schedule's txs has its fate and the load went
// out as asked. (The spread load had a 20 s run of its own; this run
// checks the same with one testnet fewer.)
//
// Not beside the other tests (no t.Parallel, not in TestKubernetes): it
// wants the spread load delivered on schedule, which two generator pods
// beside two other testnets were not (a CI run: p99 lag 74 and 65 ms).
func TestKubernetesThroughTheAPIServer(t *testing.T) {
	cs := kubetest.Cluster(t)
	before := chainperfNamespaces(t, cs)
	// The local cluster's pods are on 10.244.77.0/24 (kube/localcluster).
	const gid, pods = "4242", "10.244.77.0/24"
	rule := []string{"OUTPUT", "-m", "owner", "--gid-owner", gid, "-d", pods, "-j", "REJECT"}
	if out, err := exec.Command("iptables", append([]string{"-I"}, rule...)...).CombinedOutput(); err != nil {
		t.Fatalf("block the pod network: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("iptables", append([]string{"-D"}, rule...)...).Run() })
	outside := func(args ...string) (string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Env = registryEnv(t, t.TempDir())
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 0, Gid: 4242, Groups: []uint32{}}}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	tmp := t.TempDir()
	scenarioText := func(reach string) string {
		return fmt.Sprintf(`name = "api-%s"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
[testnet.kubernetes]
reach = %q
[load]
rate = 100
duration = "14s"
generators = 2
[experiment]
kind = "steady"
warmup = "1s"
[criteria]
max_unresolved = 0
[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "2s"
duration = "4s"
[[perturbation]]
kind = "pause"
nodes = ["validator2"]
at = "9s"
duration = "2s"
`, reach, reach)
	}
	scn := filepath.Join(tmp, "api.toml")
	os.WriteFile(scn, []byte(scenarioText("pods")), 0o644)
	out, code := outside("run", scn, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", filepath.Join(tmp, "blocked"))
	if code == 0 || !strings.Contains(out, "10.244.77.") {
		t.Fatalf("reach = \"pods\" with the pod network blocked: exit %d, want a failure naming a pod IP\n%s", code, out)
	}
	t.Logf("reach = \"pods\", blocked: %s", lastLine(out))
	os.WriteFile(scn, []byte(scenarioText("api")), 0o644)
	reports := filepath.Join(tmp, "reports")
	out, code = outside("run", scn, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", reports)
	if code != 0 || !strings.Contains(out, "1400 sent = 1400 committed") {
		t.Fatalf("reach = \"api\": exit %d\n%s", code, out)
	}
	r := readSummary(t, reports)
	if !strings.Contains(out, "from 2 generators, their ledgers merged") {
		t.Errorf("the summary does not say the 2 generators' ledgers were merged:\n%s", out)
	}
	p := r.Main()
	if s := p.Ledger; !s.Balanced() || s.Sent != 1400 || s.Fates[load.FateUnresolved] != 0 || s.Latency.Count != s.Fates[load.FateCommitted]+s.Fates[load.FateCommittedFailed] {
		t.Errorf("merged ledger %+v: want 1400 sent, each with its fate and its latency", s)
	}
	if g := p.Generator; g.Generators != 2 || g.Bound || g.Due != 1400 {
		t.Errorf("merged generator report %+v", g)
	}
	// The phase's blocks carry the generators' txs, as each saw them.
	var ours int
	for _, b := range p.Blocks {
		ours += b.Ours
	}
	if want := p.Ledger.Fates[load.FateCommitted] + p.Ledger.Fates[load.FateCommittedFailed]; int64(ours) != want {
		t.Errorf("the blocks hold %d of the generators' txs; their ledgers %d", ours, want)
	}
	for _, n := range r.Nodes {
		if !strings.HasPrefix(n.RPC, "http://127.0.0.1:") {
			t.Errorf("%s reached at %s, not through a local port-forward", n.Name, n.RPC)
		}
	}
	// Metrics and profiles came through the forwards too.
	if !strings.Contains(out, "internals:  p2p sent") || !strings.Contains(out, "cpu:        validators' top function") {
		t.Errorf("no metrics or profiles from the nodes through the API server:\n%s", out)
	}
	// A fault that fails fails the run; both are in its record.
	var whats []string
	for _, f := range r.Faults {
		whats = append(whats, f.What+" "+f.Nodes)
	}
	if len(whats) != 2 || !strings.HasPrefix(whats[0], "kill") || !strings.HasPrefix(whats[1], "pause") {
		t.Errorf("faults %q, want the kill and the pause", whats)
	}
	if now := chainperfNamespaces(t, cs); len(now) != len(before) {
		t.Errorf("namespaces after the runs: %v; before: %v", now, before)
	}
}

// kubernetesDryRun200: the 200-validator example (3 regions, 8 full
// nodes, 8 generator pods) is accepted object for object by the cluster's
// API server and nothing is kept; a pod the server refuses (a memory
// request above its limit) fails the dry run with the server's reason.
func kubernetesDryRun200(t *testing.T) {
	cs := kubetest.Cluster(t)
	before := chainperfNamespaces(t, cs)
	reg := t.TempDir()
	out, code := cli(t, reg, "testnet", "up", "-f", "../../examples/kubernetes-200.toml", "--dry-run")
	// 208 nodes: a ConfigMap, a Secret and a pod each; the generators' ConfigMap and Job.
	if code != 0 || !strings.Contains(out, "accepted all 626 objects") || !strings.Contains(out, "(208 nodes, 8 generators)") {
		t.Errorf("dry run of the 200-validator example: exit %d\n%s", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[testnet]\nprovider = \"kubernetes\"\n[testnet.kubernetes.validator]\nmemory = \"2Gi\"\nmemory_limit = \"1Gi\"\n"), 0o644)
	out, code = cli(t, reg, "testnet", "up", "-f", bad, "--dry-run")
	if code == 0 || !strings.Contains(out, "must be less than or equal to memory limit") {
		t.Errorf("dry run of a pod the server refuses: exit %d\n%s", code, out)
	}
	if now := chainperfNamespaces(t, cs); len(now) != len(before) {
		t.Errorf("namespaces after the dry runs: %v; before: %v", now, before)
	}
}

// kubernetesRBACRole: kube/rbac/role.yaml is enough. A service account
// with only that Role in a given namespace runs a testnet there (pods,
// their files, a pod killed and back, load from 2 generator pods whose
// logs are read) and leaves nothing in it; the same account cannot make
// a namespace of its own, so a scenario that needs one is refused up
// front.
func kubernetesRBACRole(t *testing.T) {
	cs := kubetest.Cluster(t)
	ctx := context.Background()
	ns := privilegedNamespace(t, cs, fmt.Sprintf("chainperf-rbac-%d", time.Now().UnixNano()%100000))
	applyRole(t, cs, ns)
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "chainperf", &authv1.TokenRequest{}, metav1.CreateOptions{})
	must(t, err)
	admin, err := kubernetes.Config(scenario.Kubernetes{})
	must(t, err)
	tmp := t.TempDir()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: chainperf, user: {token: %q}}]
contexts: [{name: c, context: {cluster: c, user: chainperf, namespace: %q}}]
current-context: c
`, admin.Host, admin.TLSClientConfig.CAFile, tok.Status.Token, ns)), 0o600)

	reg := t.TempDir()
	scn := filepath.Join(tmp, "rbac.toml")
	os.WriteFile(scn, []byte(besideOthers(fmt.Sprintf(`name = "rbac"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
[testnet.kubernetes]
kubeconfig = %q
namespace = %q
[load]
rate = 100
duration = "12s"
generators = 2
[experiment]
kind = "steady"
warmup = "1s"
[criteria]
max_unresolved = 0
[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "2s"
duration = "4s"
`, kubeconfig, ns))), 0o644)
	out, code := cli(t, reg, "run", scn, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", filepath.Join(tmp, "reports"))
	if code != 0 || !strings.Contains(out, "1200 sent = 1200 committed") {
		t.Errorf("a run with only the Role: exit %d\n%s", code, out)
	}
	// The generator pods' counts while they ran, streamed from their logs.
	live := regexp.MustCompile(`load \d+s of 12s.*sent (\d+) committed (\d+) \(last 5 s, from 2 generator pods\)`).FindAllStringSubmatch(out, -1)
	if len(live) == 0 || live[len(live)-1][1] == "0" || live[len(live)-1][2] == "0" {
		t.Errorf("no live counts from the generator pods while they ran: %q\n%s", live, out)
	} else {
		t.Logf("live while the generator pods ran: %s", live[len(live)-1][0])
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("left in %s: %d pods (%v)", ns, len(pods.Items), err)
	}
	// A Role without the pods' logs and without deleting ConfigMaps: the
	// preflight names both before anything is made.
	role, err := cs.RbacV1().Roles(ns).Get(ctx, "chainperf", metav1.GetOptions{})
	must(t, err)
	for i, r := range role.Rules {
		if slices.Contains(r.Resources, "pods/log") {
			role.Rules[i].Verbs = []string{"list"}
		}
		if slices.Contains(r.Resources, "configmaps") {
			role.Rules[i].Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == "configmaps" })
			role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}})
		}
	}
	_, err = cs.RbacV1().Roles(ns).Update(ctx, role, metav1.UpdateOptions{})
	must(t, err)
	out, code = cli(t, reg, "testnet", "up", "-f", scn)
	if code == 0 || !strings.Contains(out, "this kubeconfig may not get pods/log, delete configmaps, deletecollection configmaps") ||
		!strings.Contains(out, "kube/rbac/role.yaml in namespace "+ns) {
		t.Errorf("a Role short of two rights: exit %d\n%s", code, out)
	}
	// A namespace that enforces the baseline pod security level refuses
	// the nodes' pods (NET_ADMIN): said before anything is made.
	nsObj, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	must(t, err)
	nsObj.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
	_, err = cs.CoreV1().Namespaces().Update(ctx, nsObj, metav1.UpdateOptions{})
	must(t, err)
	os.WriteFile(scn, []byte(fmt.Sprintf("[testnet]\nprovider = \"kubernetes\"\n[testnet.kubernetes]\nnamespace = %q\n", ns)), 0o644)
	out, code = cli(t, reg, "testnet", "up", "-f", scn)
	if code == 0 || !strings.Contains(out, `enforces the "baseline" pod security level`) {
		t.Errorf("a baseline namespace: exit %d\n%s", code, out)
	}
	// A namespace of its own is beyond the Role.
	os.WriteFile(scn, []byte(fmt.Sprintf("[testnet]\nprovider = \"kubernetes\"\n[testnet.kubernetes]\nkubeconfig = %q\n", kubeconfig)), 0o644)
	out, code = cli(t, reg, "testnet", "up", "-f", scn)
	if code == 0 || !strings.Contains(out, "may this kubeconfig list namespaces (kube/rbac/clusterrole.yaml)") {
		t.Errorf("its own namespace with only the Role: exit %d\n%s", code, out)
	}
}

// applyRole makes kube/rbac/role.yaml's service account, Role and
// RoleBinding in ns, as `kubectl apply -n ns -f` would.
func applyRole(t *testing.T, cs k8s.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile("../../kube/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		switch head.Kind {
		case "ServiceAccount":
			var o corev1.ServiceAccount
			must(t, yaml.Unmarshal([]byte(doc), &o))
			_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &o, metav1.CreateOptions{})
		case "Role":
			var o rbacv1.Role
			must(t, yaml.Unmarshal([]byte(doc), &o))
			_, err = cs.RbacV1().Roles(ns).Create(ctx, &o, metav1.CreateOptions{})
		case "RoleBinding":
			var o rbacv1.RoleBinding
			must(t, yaml.Unmarshal([]byte(doc), &o))
			o.Subjects[0].Namespace = ns
			_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, &o, metav1.CreateOptions{})
		default:
			t.Fatalf("role.yaml: a %q", head.Kind)
		}
		must(t, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// kubernetesChains: a Cosmos SDK chain and a Cosmos EVM chain as pods
// (their node binaries in chainperf's image, with the libraries a cgo
// build needs): signed sends, every one committed, and the chain check
// finds the balances conserved. Two validators, the fewest that gossip
// txs and blocks between pods.
func kubernetesChains(t *testing.T) {
	kubetest.Cluster(t)
	for _, c := range []struct{ chain, section, workload string }{
		{"cosmos", "[testnet.cosmos]\nwallets = 200\ngas_price = 0.001\n", "kind = \"cosmos-send\"\ngas_limit = 100000\n"},
		{"evm", "[testnet.evm]\nwallets = 200\n", "kind = \"evm-transfer\"\namount = 1000\n"},
	} {
		t.Run(c.chain, func(t *testing.T) {
			tmp := t.TempDir()
			scn := filepath.Join(tmp, c.chain+".toml")
			os.WriteFile(scn, []byte(besideOthers(fmt.Sprintf(`name = "k8s-%s"
[testnet]
provider = "kubernetes"
validators = 2
full_nodes = 0
chain = %q
%s
[workload]
%s
[load]
rate = 50
duration = "10s"
[experiment]
kind = "steady"
[criteria]
max_unresolved = 0
`, c.chain, c.chain, c.section, c.workload))), 0o644)
			out, code := cli(t, t.TempDir(), "run", scn, "--db", filepath.Join(tmp, "runs.db"), "--report-dir", filepath.Join(tmp, "reports"))
			if code != 0 || !strings.Contains(out, "500 sent = 500 committed") || !strings.Contains(out, "balances:   conserved") {
				t.Errorf("%s on pods: exit %d\n%s", c.chain, code, out)
			}
		})
	}
}

// lastLine is out's last line that is not empty.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
