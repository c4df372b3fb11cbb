package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/chainperf/chainperf/internal/kube/image"
	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

func (p *Provider) createPod(ctx context.Context, n *testnet.Node) error {
	f, ok := p.files[n.Name]
	if !ok {
		return errors.New("its files were never written (Open)")
	}
	pull := corev1.PullIfNotPresent
	if p.pullNo {
		pull = corev1.PullNever
	}
	var env []corev1.EnvVar
	for _, kv := range p.net.NodeEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	r := p.spec.Full
	if n.Role == testnet.RoleValidator {
		r = p.spec.Validator
	}
	res, err := resources(r)
	if err != nil {
		return err
	}
	port := func(name string, n int) corev1.ContainerPort {
		return corev1.ContainerPort{Name: name, ContainerPort: int32(n), Protocol: corev1.ProtocolTCP}
	}
	keyMode, grace, no := int32(0o600), int64(10), false
	pod := &corev1.Pod{
		ObjectMeta: p.meta(n, ""),
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever, // a crash is a finding, not something to hide
			TerminationGracePeriodSeconds: &grace,
			AutomountServiceAccountToken:  &no,
			EnableServiceLinks:            &no,
			DNSPolicy:                     corev1.DNSDefault,
			Containers: []corev1.Container{{
				Name:            "node",
				Image:           p.image,
				ImagePullPolicy: pull,
				Command: append([]string{image.Binary, "pod", "--from", filesDir, "--from", keysDir, "--home", homeDir,
					"--agent", strconv.Itoa(agentPort(n)), "--"}, p.nodeCommand()...),
				// The agent cuts the pod off with nftables rules in its own
				// network namespace (disconnect, partition).
				SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}},
				Env:             env,
				Ports: []corev1.ContainerPort{port("p2p", n.Ports.P2P), port("rpc", n.Ports.RPC),
					port("metrics", n.Ports.Metrics), port("pprof", n.Ports.Pprof), port("agent", agentPort(n))},
				Resources: res,
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt(n.Ports.RPC)}},
					PeriodSeconds: 1,
				},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "files", MountPath: filesDir, ReadOnly: true},
					{Name: "keys", MountPath: keysDir, ReadOnly: true},
					{Name: "home", MountPath: homeDir},
				},
			}},
			Volumes: []corev1.Volume{
				{Name: "files", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: f.cm}, Items: f.files}}},
				{Name: "keys", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
					SecretName: f.sec, Items: f.keys, DefaultMode: &keyMode}}},
				{Name: "home", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
	if p.KeepsHome() {
		pod.Spec.Volumes[2].VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: podName(n) + homeClaim}}
	}
	if z := p.zones[n.Name]; z != "" && p.spec.ZoneLabel != "" {
		pod.Spec.NodeSelector = map[string]string{p.spec.ZoneLabel: z}
	}
	_, err = p.cs.CoreV1().Pods(p.ns).Create(ctx, pod, p.create())
	// Start never makes a pod of a node that runs, and Kill waits until
	// the pod is gone: one of this testnet's for n is the one just made.
	if err != nil && madeBefore(ctx, err, p.labels(n), func(ctx context.Context) (metav1.Object, error) {
		return p.cs.CoreV1().Pods(p.ns).Get(ctx, podName(n), metav1.GetOptions{})
	}) {
		p.log.Info("pod made by a create sent again", "node", n.Name)
		return nil
	}
	return err
}

// nodeCommand is what runs the node in its pod: the embedded node, or the
// testnet's binary (a Cosmos or EVM chain's, a released CometBFT) from
// the image with its arguments, {home} the pod's home.
func (p *Provider) nodeCommand() []string {
	if p.net.Binary == "" {
		return []string{image.Binary, "node", "--home", homeDir}
	}
	argv := []string{image.ChainPath(p.net.Binary)}
	for _, a := range p.net.Args {
		argv = append(argv, strings.ReplaceAll(a, "{home}", homeDir))
	}
	return argv
}

// resources are the requests and limits of r in Kubernetes' terms.
func resources(r scenario.Resources) (corev1.ResourceRequirements, error) {
	out := corev1.ResourceRequirements{}
	set := func(list *corev1.ResourceList, name corev1.ResourceName, v string) error {
		if v == "" {
			return nil
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return fmt.Errorf("%s %q: %w", name, v, err)
		}
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		(*list)[name] = q
		return nil
	}
	return out, errors.Join(set(&out.Requests, corev1.ResourceCPU, r.CPU), set(&out.Requests, corev1.ResourceMemory, r.Memory),
		set(&out.Limits, corev1.ResourceCPU, r.CPULimit), set(&out.Limits, corev1.ResourceMemory, r.MemoryLimit))
}

// waitReady waits until n's pod runs, has an IP and answers on its RPC
// port; a pod that cannot start is an error that says why.
func (p *Provider) waitReady(ctx context.Context, n *testnet.Node) (string, error) {
	timeout := p.spec.Ready.D()
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	end := time.Now().Add(timeout)
	why := "not scheduled yet"
	for time.Now().Before(end) {
		pod, err := p.cs.CoreV1().Pods(p.ns).Get(ctx, podName(n), metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
			return "", fmt.Errorf("pod %s/%s ended (%s): %s", p.ns, pod.Name, pod.Status.Phase, p.podProblem(ctx, pod))
		}
		if ready(pod) && pod.Status.PodIP != "" {
			return pod.Status.PodIP, nil
		}
		if w := waiting(pod); w != "" {
			why = w
			if strings.Contains(w, "ErrImage") || strings.Contains(w, "ImagePull") || strings.Contains(w, "InvalidImageName") {
				return "", fmt.Errorf("pod %s/%s cannot get its image: %s", p.ns, pod.Name, w)
			}
		} else if pod.Status.Phase == corev1.PodPending {
			for _, c := range pod.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					why = "not scheduled: " + c.Message
				}
			}
		} else {
			why = "running, not answering on its RPC port yet"
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("pod %s/%s not ready after %s (testnet.kubernetes.ready_timeout): %s", p.ns, podName(n), timeout, why)
}

func ready(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func waiting(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return w.Reason + ": " + w.Message
		}
	}
	return ""
}

// podProblem says why a pod ended: its container's exit and the end of
// its log.
func (p *Provider) podProblem(ctx context.Context, pod *corev1.Pod) string {
	msg := pod.Status.Reason
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			msg = fmt.Sprintf("exit %d (%s)", t.ExitCode, t.Reason)
			if t.Message != "" {
				msg += ": " + strings.TrimSpace(t.Message)
			}
		}
	}
	if raw, err := p.podLog(ctx, pod.Name, 5); err == nil && len(raw) > 0 {
		msg += "; its log ends: " + strings.TrimSpace(string(raw))
	}
	return msg
}

// LogTail gives the end of n's pod log (its last 50 lines, cut to most
// bytes).
func (p *Provider) LogTail(ctx context.Context, n *testnet.Node, most int) ([]byte, error) {
	raw, err := p.podLog(ctx, podName(n), 50)
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s's log: %w", p.ns, podName(n), err)
	}
	return raw[max(0, len(raw)-most):], nil
}

// Log gives n's whole pod log for keeping with the run, read through the
// API to its end (testnet.KeepLog: at most most bytes kept, its first
// eighth and its end when longer).
func (p *Provider) Log(ctx context.Context, n *testnet.Node, most int) ([]byte, int64, error) {
	rc, err := p.cs.CoreV1().Pods(p.ns).GetLogs(podName(n), &corev1.PodLogOptions{Container: "node"}).Stream(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("pod %s/%s's log: %w", p.ns, podName(n), err)
	}
	defer rc.Close()
	text, size, err := testnet.KeepLog(rc, most)
	if err != nil {
		return nil, size, fmt.Errorf("pod %s/%s's log: %w", p.ns, podName(n), err)
	}
	return text, size, nil
}

// podLog reads the last lines of a node pod's log.
func (p *Provider) podLog(ctx context.Context, pod string, lines int64) ([]byte, error) {
	return p.cs.CoreV1().Pods(p.ns).GetLogs(pod, &corev1.PodLogOptions{Container: "node", TailLines: &lines}).DoRaw(ctx)
}
