package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"

	"github.com/chainperf/chainperf/internal/store"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes"
	"github.com/chainperf/chainperf/internal/testnet/kubernetes/kubetest"
)

// kubernetesHarnessInAPod: with harness = "pod" the whole harness runs
// as a Job's pod (as the service account of kube/rbac/role.yaml), its
// output comes to the caller as it goes, and at the end the run, its
// report and its profiles land in the caller's own database and report
// dir, with the caller's label and exit code; nothing is left in the
// namespace. Interrupted, the pod's run tears its testnet down.
func kubernetesHarnessInAPod(t *testing.T) {
	cs := kubetest.Cluster(t)
	ctx := context.Background()
	ns := privilegedNamespace(t, cs, "chainperf-harness-"+fmt.Sprint(time.Now().UnixNano()%100000))
	tmp := t.TempDir()
	scn := filepath.Join(tmp, "pod.toml")
	os.WriteFile(scn, []byte(besideOthers(fmt.Sprintf(`name = "harness-pod"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
[testnet.kubernetes]
namespace = %q
harness = "pod"
[load]
rate = 100
duration = "10s"
[experiment]
kind = "steady"
warmup = "1s"
[criteria]
max_unresolved = 0
[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "2s"
duration = "3s"
`, ns))), 0o644)
	db, reports := filepath.Join(tmp, "mine.db"), filepath.Join(tmp, "my-reports")

	// Without the service account, said before anything is made.
	out, code := cli(t, t.TempDir(), "run", scn, "--db", db, "--report-dir", reports)
	if code == 0 || !strings.Contains(out, "has no service account \"chainperf\" for the harness pod: kubectl apply -n "+ns+" -f kube/rbac/role.yaml") {
		t.Fatalf("no service account: exit %d\n%s", code, out)
	}
	applyRole(t, cs, ns)
	out, code = cli(t, t.TempDir(), "run", scn, "--db", db, "--report-dir", reports, "--label", "where=pod", "--rate", "120")
	if code != 0 || !strings.Contains(out, "== steady 1/1") || !strings.Contains(out, "1200 sent = 1200 committed") || !strings.Contains(out, "made in the harness pod: stored in "+db) {
		t.Fatalf("a run in a harness pod: exit %d\n%s", code, out)
	}
	st, err := store.Open(ctx, db)
	must(t, err)
	list, err := st.List(ctx, store.Filter{})
	must(t, err)
	if len(list) != 1 || list[0].Labels["where"] != "pod" {
		t.Fatalf("the caller's database holds %+v; want the pod's run, labelled where=pod", list)
	}
	r, err := st.Run(ctx, list[0].ID)
	must(t, err)
	if !r.Passed || len(r.Phases) != 1 || len(r.Phases[0].Blocks) == 0 || r.Phases[0].Ledger.Sent != 1200 || len(r.Faults) != 1 || r.ReportDir != filepath.Join(reports, r.ID) {
		t.Errorf("imported run: passed %v, phases %d, sent %d, faults %d, report dir %s", r.Passed, len(r.Phases), r.Phases[0].Ledger.Sent, len(r.Faults), r.ReportDir)
	}
	if series, err := st.Series(ctx, r.ID); err != nil || len(series) == 0 {
		t.Errorf("no node samples came with the run: %v", err)
	}
	for _, p := range r.Profiles {
		if _, err := os.Stat(p.File); err != nil || !strings.HasPrefix(p.File, reports) {
			t.Errorf("profile %s of %s: %v", p.File, p.Node, err)
		}
	}
	if _, err := os.Stat(filepath.Join(reports, r.ID, "summary.json")); err != nil {
		t.Errorf("no report in the caller's report dir: %v", err)
	}
	st.Close()
	out, code = cli(t, t.TempDir(), "runs", "show", r.ID, "--db", db)
	if code != 0 || !strings.Contains(out, "harness-pod") {
		t.Errorf("runs show of the imported run: exit %d\n%s", code, out)
	}
	leftIn(t, cs, ns)

	// A run that fails its criteria in the pod fails here, with exit 1,
	// and is stored as failed (one validator: the verdict is the subject).
	failing := filepath.Join(tmp, "failing.toml")
	os.WriteFile(failing, []byte(fmt.Sprintf(`name = "harness-pod-fails"
[testnet]
provider = "kubernetes"
validators = 1
full_nodes = 0
[testnet.kubernetes]
namespace = %q
harness = "pod"
[load]
rate = 50
duration = "4s"
[experiment]
kind = "steady"
warmup = "1s"
[criteria]
max_p99_latency = "1ms"
`, ns)), 0o644)
	out, code = cli(t, t.TempDir(), "run", failing, "--db", db, "--report-dir", reports)
	if code != exitFail || !strings.Contains(out, "made in the harness pod") {
		t.Errorf("a run failing its criteria in the pod: exit %d, want %d\n%s", code, exitFail, out)
	}
	st, err = store.Open(ctx, db)
	must(t, err)
	if list, err := st.List(ctx, store.Filter{Scenario: "harness-pod-fails"}); err != nil || len(list) != 1 || list[0].Passed == nil || *list[0].Passed {
		t.Errorf("the failed run in the caller's database: %+v, %v", list, err)
	}
	st.Close()
	leftIn(t, cs, ns)

	// Ctrl-C while the pod's load runs: its run is stopped and its
	// testnet torn down; nothing is stored.
	cmd := exec.Command(binary, "run", scn, "--db", db, "--report-dir", reports)
	cmd.Env = registryEnv(t, t.TempDir())
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	must(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.HasPrefix(sc.Text(), "== steady") {
			break
		}
	}
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		seen = append(seen, sc.Text())
	}
	err = cmd.Wait()
	all := strings.Join(seen, "\n")
	if err == nil || !strings.Contains(all, "interrupted: the harness pod was stopped and its testnet torn down") || !strings.Contains(all, "== testnet down") {
		t.Errorf("Ctrl-C: %v\n%s", err, all)
	}
	leftIn(t, cs, ns)
}

// privilegedNamespace makes namespace ns, labelled to admit the nodes'
// pods (NET_ADMIN), as a team would for chainperf; deleted at the end.
func privilegedNamespace(t *testing.T, cs k8s.Interface, ns string) string {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "privileged"}}}, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() { _ = kubernetes.DeleteNamespace(context.Background(), cs, ns) })
	return ns
}

// leftIn fails the test if chainperf left pods, Jobs or ConfigMaps of
// its own in ns.
func leftIn(t *testing.T, cs k8s.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: kubernetes.LabelManaged + "=chainperf"}
	pods, err1 := cs.CoreV1().Pods(ns).List(ctx, sel)
	jobs, err2 := cs.BatchV1().Jobs(ns).List(ctx, sel)
	cms, err3 := cs.CoreV1().ConfigMaps(ns).List(ctx, sel)
	if err1 != nil || err2 != nil || err3 != nil || len(pods.Items)+len(jobs.Items)+len(cms.Items) > 0 {
		t.Errorf("left in %s: %d pods, %d jobs, %d configmaps (%v %v %v)", ns, len(pods.Items), len(jobs.Items), len(cms.Items), err1, err2, err3)
	}
}
