/** The branches of a repository as their entity shows them, for pages. */
export { listBranches, showBranch, type BranchPage, type BranchView, type ListBranchesInput } from './service.js'
