//! Classifies shell command lines for the approval gate.
