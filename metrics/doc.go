// Package metrics reads what training jobs log about themselves, TensorBoard
// event files and the text logs of the common frameworks, into the points
// the pipeline needs: each job's convergence metric per step (the loss
// table), how fast it trained at each configuration (the speed table) and
// how far it is (progress_steps).
//
// It is pure: readers take files and return points; nothing is written and
// no state is kept between runs, so reading the same logs twice gives the
// same rows, and a log that grew since the last run is read again whole.
//
// Each kind of log is one file that registers a Source (see source.go): its
// name, help, options and constructor; the metrics command derives its
// --source values, per-source flags and help from the registry, so adding a
// format is adding one file.
package metrics
