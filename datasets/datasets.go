// Package datasets holds the data optimus ships with, typed: real speed
// measurements embedded in the binary (Measured) and the model families
// fitted to them (JobModels, SimProfiles, TestbedModels), Pollux's
// profiles, workloads and validation curves, the parameter blocks of PS
// models, and generators of synthetic curves. Every generator takes a
// seed or a source of randomness; the same seed gives the same data.
//
// It imports no table code (io/table, Arrow, Parquet), so that the tests
// of the core packages that use this data link none: package datatables,
// above it, turns the data into optimus's tables and lists the datasets
// `optimus datasets export` writes.
package datasets
