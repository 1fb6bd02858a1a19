// What other features may use of clusters.
export {}
