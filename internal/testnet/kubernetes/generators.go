package kubernetes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chainperf/chainperf/internal/kube/image"
	"github.com/chainperf/chainperf/internal/testnet"
)

var _ testnet.LoadSpreader = (*Provider)(nil)

// RunGenerators runs one generator pod per spec as an indexed Job (pod i
// reads spec i from a ConfigMap and runs `chainperf generate`), waits
// until every pod has ended and returns each one's last line of output.
// A pod that fails, or cannot be scheduled or started within the ready
// timeout, is an error that names it. The Job and its pods are deleted
// before it returns. In a dry run the API server checks the ConfigMap and
// the Job, and there are no answers.
func (p *Provider) RunGenerators(ctx context.Context, specs [][]byte, live func([]byte)) ([][]byte, error) {
	p.mu.Lock()
	p.jobs++
	name := fmt.Sprintf("generators-%d", p.jobs)
	p.mu.Unlock()
	n := int32(len(specs))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.ns, Labels: p.labels(nil)}, Data: map[string]string{}}
	for i, s := range specs {
		cm.Data[fmt.Sprintf("spec-%d.json", i)] = string(s)
	}
	bg := context.WithoutCancel(ctx)
	if _, err := p.cs.CoreV1().ConfigMaps(p.ns).Create(ctx, cm, p.create()); err != nil && !madeBefore(ctx, err, cm.Labels,
		func(ctx context.Context) (metav1.Object, error) {
			return p.cs.CoreV1().ConfigMaps(p.ns).Get(ctx, name, metav1.GetOptions{})
		}) {
		return nil, fmt.Errorf("create configmap %s: %w", name, err)
	}
	defer func() { _ = p.cs.CoreV1().ConfigMaps(p.ns).Delete(bg, name, metav1.DeleteOptions{}) }()
	pull := corev1.PullIfNotPresent
	if p.pullNo {
		pull = corev1.PullNever
	}
	res, err := resources(p.spec.Generator)
	if err != nil {
		return nil, err
	}
	labels := p.labels(nil)
	labels[LabelRole] = "generator"
	indexed, zero, no := batchv1.IndexedCompletion, int32(0), false
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.ns, Labels: labels},
		Spec: batchv1.JobSpec{
			Completions: &n, Parallelism: &n, CompletionMode: &indexed, BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever, // a generator that dies is reported, not rerun
					AutomountServiceAccountToken: &no,
					EnableServiceLinks:           &no,
					DNSPolicy:                    corev1.DNSDefault,
					Containers: []corev1.Container{{
						Name: "generator", Image: p.image, ImagePullPolicy: pull,
						Command:      []string{image.Binary, "generate", "--spec-dir", "/specs"},
						Resources:    res,
						VolumeMounts: []corev1.VolumeMount{{Name: "specs", MountPath: "/specs", ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "specs", VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}},
				},
			},
		},
	}
	if _, err := p.cs.BatchV1().Jobs(p.ns).Create(ctx, job, p.create()); err != nil && !madeBefore(ctx, err, job.Labels,
		func(ctx context.Context) (metav1.Object, error) {
			return p.cs.BatchV1().Jobs(p.ns).Get(ctx, name, metav1.GetOptions{})
		}) {
		return nil, fmt.Errorf("create job %s: %w", name, err)
	}
	if p.dryRun {
		return nil, nil // checked, never run: no answers
	}
	defer func() {
		fg := metav1.DeletePropagationForeground
		_ = p.cs.BatchV1().Jobs(p.ns).Delete(bg, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64), PropagationPolicy: &fg})
	}()
	p.log.Info("generator pods made", "job", p.ns+"/"+name, "pods", n)
	return p.waitGenerators(ctx, name, len(specs), live)
}

// waitGenerators waits until each of the job's n pods has ended and reads
// the last line each one printed.
func (p *Provider) waitGenerators(ctx context.Context, job string, n int, live func([]byte)) ([][]byte, error) {
	sel := metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job}
	sctx, stopStreams := context.WithCancel(ctx)
	var streams sync.WaitGroup
	defer func() { stopStreams(); streams.Wait() }()
	streaming := map[string]bool{}
	made := time.Now()
	ready := p.spec.Ready.D()
	if ready <= 0 {
		ready = 2 * time.Minute
	}
	for {
		pods, err := p.cs.CoreV1().Pods(p.ns).List(ctx, sel)
		if err != nil {
			return nil, err
		}
		byIndex := map[int]*corev1.Pod{}
		var errs []error
		for i := range pods.Items {
			pod := &pods.Items[i]
			idx, err := strconv.Atoi(pod.Annotations["batch.kubernetes.io/job-completion-index"])
			if err != nil || idx < 0 || idx >= n {
				continue
			}
			byIndex[idx] = pod
			if live != nil && pod.Status.Phase == corev1.PodRunning && !streaming[pod.Name] {
				streaming[pod.Name] = true
				streams.Add(1)
				go func(name string) { defer streams.Done(); p.streamLog(sctx, name, live) }(pod.Name)
			}
			switch {
			case pod.Status.Phase == corev1.PodFailed:
				errs = append(errs, fmt.Errorf("generator pod %d (%s/%s) died: %s", idx, p.ns, pod.Name, p.podProblem(ctx, pod)))
			case pod.Status.Phase == corev1.PodPending && time.Since(made) > ready:
				why := waiting(pod)
				if why == "" {
					why = "not scheduled or started"
				}
				errs = append(errs, fmt.Errorf("generator pod %d (%s/%s) not running after %s (testnet.kubernetes.ready_timeout): %s", idx, p.ns, pod.Name, ready, why))
			}
		}
		if len(errs) == 0 && len(byIndex) < n {
			// A pod gone (deleted, evicted) leaves only the Job's word.
			if j, err := p.cs.BatchV1().Jobs(p.ns).Get(ctx, job, metav1.GetOptions{}); err == nil {
				for _, c := range j.Status.Conditions {
					if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
						errs = append(errs, fmt.Errorf("generator job %s/%s failed: %s: %s", p.ns, job, c.Reason, c.Message))
					}
				}
			}
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		done := 0
		for _, pod := range byIndex {
			if pod.Status.Phase == corev1.PodSucceeded {
				done++
			}
		}
		if done == n {
			out := make([][]byte, n)
			for i := 0; i < n; i++ {
				if out[i], err = p.lastLine(ctx, byIndex[i]); err != nil {
					return nil, fmt.Errorf("generator pod %d: %w", i, err)
				}
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// streamLog follows a generator pod's log while it runs and hands each
// line but its result to live. A pod's lines are its input: longer than
// maxLiveLine they are skipped; a broken stream ends it (the final answer
// is read apart).
func (p *Provider) streamLog(ctx context.Context, pod string, live func([]byte)) {
	rc, err := p.cs.CoreV1().Pods(p.ns).GetLogs(pod, &corev1.PodLogOptions{Container: "generator", Follow: true}).Stream(ctx)
	if err != nil {
		return
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 4096), maxLiveLine)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			live(slices.Clone(line))
		}
	}
}

// maxLiveLine bounds a generator's live line (a few seconds of counts).
const maxLiveLine = 64 << 10

// lastLine is the last non-empty line a pod printed.
func (p *Provider) lastLine(ctx context.Context, pod *corev1.Pod) ([]byte, error) {
	raw, err := p.cs.CoreV1().Pods(p.ns).GetLogs(pod.Name, &corev1.PodLogOptions{Container: "generator"}).DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the log of %s/%s: %w", p.ns, pod.Name, err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	last := bytes.TrimSpace(lines[len(lines)-1])
	if !bytes.HasPrefix(last, []byte("{")) {
		return nil, fmt.Errorf("%s/%s printed no result; its log ends: %s", p.ns, pod.Name, strings.TrimSpace(string(last)))
	}
	return last, nil
}
