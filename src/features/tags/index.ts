/** The tags of a repository as their entity shows them, for pages. */
export { listTags, showTag, type ListTagsInput, type TagView } from './service.js'
