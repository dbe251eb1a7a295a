// Placeholder the lead made so the package resolves while the worker tests are written; delete when the first test file lands.
import Testing
