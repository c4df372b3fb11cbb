package kubernetes

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/chainperf/chainperf/internal/kube/harnesspod"
	"github.com/chainperf/chainperf/internal/kube/image"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// ImageEnv, in a harness pod, names the node image the caller delivered
// (the pod's own): the pod's run uses it and delivers none.
const ImageEnv = "CHAINPERF_KUBE_IMAGE"

// PodAPIEnv names where pods reach the API server (HOST:PORT) when the
// cluster's kubernetes Service does not route (a cluster without
// kube-proxy, as kube/localcluster's, which prints it): a harness pod is
// told so instead of the Service's cluster IP.
const PodAPIEnv = "CHAINPERF_KUBE_POD_API"

// HarnessAccount is the service account a harness pod runs as
// (kube/rbac/role.yaml makes it).
const HarnessAccount = "chainperf"

// Bounds on what a harness pod hands back.
const (
	maxResultBytes = 4 << 30
	maxResultFiles = 100_000
	// harnessGrace is how long a deleted harness pod has to tear its
	// testnet down (its run's teardown after SIGTERM).
	harnessGrace = 120
	// harnessTTL is how long after its pod ends a harness Job (and its
	// ConfigMap) stays when nobody deleted it: its caller died.
	harnessTTL = 300
)

// A HarnessRun is a run to make in a harness pod.
type HarnessRun struct {
	Scenario []byte   // the scenario file's text
	Args     []string // `chainperf run` flags for the pod's run (overrides, labels)
	Exe      string   // chainperf's own binary: the image's
	Out      io.Writer
	Dir      string // an empty dir the results go into: runs.db, reports/
	Log      *slog.Logger
}

// RunHarness runs chainperf's whole harness as a Job's pod in the
// scenario's namespace, as HarnessAccount: it delivers the image, prints
// the pod's output as it comes, and once the pod's run has ended brings
// its results (database, reports, profiles) into h.Dir through a
// port-forward, and returns the run's exit code. ctx ending (Ctrl-C)
// deletes the Job; the pod's run tears its testnet down within its grace
// period, and RunHarness waits for the pod to be gone. The Job and its
// ConfigMap are deleted at the end either way.
func RunHarness(ctx context.Context, spec scenario.Testnet, h HarnessRun) (int, error) {
	k := spec.Kubernetes
	if err := Preflight(spec, testnet.ProviderOptions{}); err != nil {
		return 0, err
	}
	cfg, err := Config(k)
	if err != nil {
		return 0, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	ns, log := k.Namespace, h.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, HarnessAccount, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return 0, fmt.Errorf("namespace %s has no service account %q for the harness pod: kubectl apply -n %s -f kube/rbac/role.yaml", ns, HarnessAccount, ns)
	}
	ref, pullNever, err := deliver(ctx, k, h.Exe, "", false)
	if err != nil {
		return 0, err
	}
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	name := "chainperf-harness-" + hex.EncodeToString(id)
	labels := map[string]string{LabelManaged: "chainperf", LabelRegistry: testnet.RegistryKey(), LabelRole: "harness"}
	bg := context.WithoutCancel(ctx)
	// The Job first, then its ConfigMap owned by it (the pod waits for
	// it): should this process die, the cluster deletes both
	// harnessTTL after the pod's run ends.
	job, err := cs.BatchV1().Jobs(ns).Create(ctx, harnessJob(name, ns, ref, pullNever, labels, h.Args), metav1.CreateOptions{})
	if err != nil && madeBefore(ctx, err, labels, func(ctx context.Context) (metav1.Object, error) {
		there, gerr := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if gerr == nil {
			job = there // its UID owns the ConfigMap
		}
		return there, gerr
	}) {
		err = nil
	}
	if err != nil {
		return 0, fmt.Errorf("create job %s: %w", name, err)
	}
	deleted := false
	deleteJob := func() {
		if deleted {
			return
		}
		deleted = true
		fg := metav1.DeletePropagationForeground
		_ = cs.BatchV1().Jobs(ns).Delete(bg, name, metav1.DeleteOptions{PropagationPolicy: &fg})
	}
	defer func() { deleteJob(); waitGone(cs, ns, name) }()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: name, UID: job.UID}}},
		Data: map[string]string{"scenario.toml": string(h.Scenario)}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !madeBefore(ctx, err, labels,
		func(ctx context.Context) (metav1.Object, error) {
			return cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		}) {
		return 0, fmt.Errorf("create configmap %s: %w", name, err)
	}
	defer func() { _ = cs.CoreV1().ConfigMaps(ns).Delete(bg, name, metav1.DeleteOptions{}) }()
	fmt.Fprintf(h.Out, "harness pod: job %s/%s (image %s)\n", ns, name, ref)
	pod, err := waitHarnessPod(ctx, cs, ns, name, k.Ready.D())
	if err != nil {
		return 0, err
	}
	// The pod's log, followed again from its last line should the
	// stream break while the pod runs (a proxy's idle timeout).
	ready := make(chan int, 1)
	var last time.Time
	for {
		streamed := make(chan struct{})
		sctx, stop := context.WithCancel(bg)
		go func() {
			defer close(streamed)
			last = followHarness(sctx, cs, ns, pod, last, h.Out, ready)
		}()
		code, said := 0, false
		select {
		case code = <-ready:
			said = true
		case <-streamed:
		case <-ctx.Done():
			// Its output goes on while its run tears its testnet down.
			fmt.Fprintf(h.Out, "harness pod: stopping %s/%s (its run tears its testnet down, up to %d s)\n", ns, pod, harnessGrace)
			deleteJob()
			waitGone(cs, ns, name)
			stop()
			<-streamed
			return 0, ctx.Err()
		}
		stop()
		<-streamed
		if !said { // said just before its stream ended?
			select {
			case code = <-ready:
				said = true
			default:
			}
		}
		if said {
			if err := fetchResults(cfg, cs, ns, pod, h.Dir, log); err != nil {
				return 0, err
			}
			return code, nil
		}
		p, err := cs.CoreV1().Pods(ns).Get(bg, pod, metav1.GetOptions{})
		if err != nil {
			return 0, fmt.Errorf("harness pod %s/%s: its log ended and it cannot be read: %w", ns, pod, err)
		}
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			return 0, fmt.Errorf("harness pod %s/%s ended before its results were ready: %s", ns, pod, problemOf(p))
		}
		time.Sleep(time.Second)
	}
}

func harnessJob(name, ns, ref string, pullNever bool, labels map[string]string, args []string) *batchv1.Job {
	pull := corev1.PullIfNotPresent
	if pullNever {
		pull = corev1.PullNever
	}
	zero, grace, ttl, yes := int32(0), int64(harnessGrace), int32(harnessTTL), true
	env := []corev1.EnvVar{{Name: ImageEnv, Value: ref}}
	if host, port, err := net.SplitHostPort(os.Getenv(PodAPIEnv)); err == nil {
		env = append(env, corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: host}, corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: port})
	}
	cmd := append([]string{image.Binary, "harness-pod", "--"}, harnesspod.Args("/spec/scenario.toml", args)...)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            &zero,
			TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                 corev1.RestartPolicyNever, // a harness that dies is reported, not rerun
					ServiceAccountName:            HarnessAccount,
					AutomountServiceAccountToken:  &yes,
					TerminationGracePeriodSeconds: &grace,
					Containers: []corev1.Container{{
						Name: "harness", Image: ref, ImagePullPolicy: pull, Command: cmd,
						Env: env,
						VolumeMounts: []corev1.VolumeMount{
							{Name: "spec", MountPath: "/spec", ReadOnly: true},
							{Name: "out", MountPath: harnesspod.Out},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "spec", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}},
						{Name: "out", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					},
				},
			},
		},
	}
}

// waitHarnessPod waits until the job's pod runs and returns its name.
func waitHarnessPod(ctx context.Context, cs kubernetes.Interface, ns, job string, timeout time.Duration) (string, error) {
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	end := time.Now().Add(timeout)
	why := "not made yet"
	for time.Now().Before(end) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job})
		if err != nil {
			return "", err
		}
		for _, p := range pods.Items {
			switch p.Status.Phase {
			case corev1.PodRunning, corev1.PodSucceeded:
				return p.Name, nil
			case corev1.PodFailed:
				return "", fmt.Errorf("harness pod %s/%s failed: %s", ns, p.Name, problemOf(&p))
			}
			if w := waiting(&p); w != "" {
				why = w
			} else {
				why = "pending"
			}
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("harness pod of job %s/%s not running after %s (testnet.kubernetes.ready_timeout): %s", ns, job, timeout, why)
}

// followHarness copies the pod's output from after since to out as it
// comes, sends the run's exit code to ready when the pod says its results
// are ready, and returns the time of the last line it read. The pod's
// lines are its input: a line longer than 1 MiB ends the copy.
func followHarness(ctx context.Context, cs kubernetes.Interface, ns, pod string, since time.Time, out io.Writer, ready chan<- int) time.Time {
	o := &corev1.PodLogOptions{Container: "harness", Follow: true, Timestamps: true}
	if !since.IsZero() {
		t := metav1.NewTime(since) // the API takes whole seconds: lines up to since are skipped below
		o.SinceTime = &t
	}
	rc, err := cs.CoreV1().Pods(ns).GetLogs(pod, o).Stream(ctx)
	if err != nil {
		return since
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		stamp, line, _ := strings.Cut(sc.Text(), " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil || !at.After(since) {
			continue
		}
		since = at
		if rest, ok := strings.CutPrefix(line, harnesspod.Ready+" (exit "); ok {
			if code, err := strconv.Atoi(strings.TrimSuffix(rest, ")")); err == nil {
				ready <- code
				return since
			}
		}
		fmt.Fprintln(out, line)
	}
	return since
}

// fetchResults reads the pod's results through a port-forward into dir
// and tells the pod it may end.
func fetchResults(cfg *rest.Config, cs kubernetes.Interface, ns, pod, dir string, log *slog.Logger) error {
	fwd := newForwarder(cfg, cs, ns, log)
	defer fwd.close()
	if err := fwd.listen(pod, harnesspod.Port); err != nil {
		return err
	}
	base := "http://" + fwd.addr(pod, harnesspod.Port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/results", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("harness pod %s/%s: fetch its results: %w", ns, pod, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("harness pod %s/%s: its results: %s", ns, pod, resp.Status)
	}
	if err := harnesspod.Unpack(resp.Body, dir, maxResultBytes, maxResultFiles); err != nil {
		return fmt.Errorf("harness pod %s/%s: %w", ns, pod, err)
	}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/done", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	return nil
}

// waitGone waits, up to the harness's grace and a little more, until
// the job and its pods are gone.
func waitGone(cs kubernetes.Interface, ns, job string) {
	ctx := context.Background()
	end := time.Now().Add((harnessGrace + 15) * time.Second)
	for time.Now().Before(end) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job})
		_, jerr := cs.BatchV1().Jobs(ns).Get(ctx, job, metav1.GetOptions{})
		if err == nil && len(pods.Items) == 0 && apierrors.IsNotFound(jerr) {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// problemOf says why a pod is not running: its containers' state.
func problemOf(p *corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			return fmt.Sprintf("exit %d (%s) %s", t.ExitCode, t.Reason, strings.TrimSpace(t.Message))
		}
	}
	if w := waiting(p); w != "" {
		return w
	}
	return string(p.Status.Phase)
}

// InHarnessPod says whether this process runs in a harness pod (whose
// run is made here, not in another pod).
func InHarnessPod() bool { return os.Getenv(ImageEnv) != "" }
