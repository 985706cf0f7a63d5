// Package adapt converts between optimus' tables (package io/table, as
// declared in io/schema) and the typed values of package pipeline: loss and
// speed tables into series to fit, models into and out of the models
// table, jobs into predict's job states, predictions and the cluster into
// solve's requests, allocations into place's assignments, plans into the
// current state and back. Messages about bad values name the file, column
// and row.
package adapt
