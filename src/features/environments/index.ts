// What other features may use of environments.
export {}
