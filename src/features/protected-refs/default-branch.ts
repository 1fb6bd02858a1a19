// A group's (or the instance's) default branch protection (GL Gitlab::Access::BranchProtection, the protection levels
// of Gitlab::Access and `default_branch_protection_defaults`).

/** GL Gitlab::Access: PROTECTION_NONE, DEV_CAN_PUSH, FULL, DEV_CAN_MERGE, DEV_CAN_INITIAL_PUSH. */
export const BranchProtectionLevel = { NONE: 0, DEV_CAN_PUSH: 1, FULL: 2, DEV_CAN_MERGE: 3, DEV_CAN_INITIAL_PUSH: 4 } as const

/** Keys in the order GitLab serves the stored setting. */
export interface BranchProtectionDefaults {
  allowed_to_push: { access_level: number }[]
  allow_force_push: boolean
  allowed_to_merge: { access_level: number }[]
  developer_can_initial_push: boolean
}

/** What a namespace row keeps of it. */
export interface NamespaceBranchProtection {
  default_branch_protection: number | null
  default_branch_protection_defaults: string | null
}

/** GL Gitlab::Access::BranchProtection for each protection level. */
export function branchProtectionOfLevel(level: number): BranchProtectionDefaults {
  const developers = [{ access_level: 30 }]
  const maintainers = [{ access_level: 40 }]
  switch (level) {
    case BranchProtectionLevel.NONE:
      return { allowed_to_push: developers, allow_force_push: true, allowed_to_merge: developers, developer_can_initial_push: false }
    case BranchProtectionLevel.DEV_CAN_PUSH:
      return { allowed_to_push: developers, allow_force_push: false, allowed_to_merge: maintainers, developer_can_initial_push: false }
    case BranchProtectionLevel.DEV_CAN_MERGE:
      return { allowed_to_push: maintainers, allow_force_push: false, allowed_to_merge: developers, developer_can_initial_push: false }
    case BranchProtectionLevel.DEV_CAN_INITIAL_PUSH:
      return { allowed_to_push: maintainers, allow_force_push: false, allowed_to_merge: maintainers, developer_can_initial_push: true }
    default:
      return { allowed_to_push: maintainers, allow_force_push: false, allowed_to_merge: maintainers, developer_can_initial_push: false }
  }
}

function sameLevels(a: { access_level: number }[], b: { access_level: number }[]): boolean {
  return a.length === b.length && a.every((entry, n) => entry.access_level === b[n].access_level)
}

/** The protection level whose settings these are, or null. */
export function levelOfBranchProtection(defaults: BranchProtectionDefaults): number | null {
  for (const level of Object.values(BranchProtectionLevel)) {
    const preset = branchProtectionOfLevel(level)
    if (
      sameLevels(preset.allowed_to_push, defaults.allowed_to_push) &&
      sameLevels(preset.allowed_to_merge, defaults.allowed_to_merge) &&
      preset.allow_force_push === defaults.allow_force_push &&
      preset.developer_can_initial_push === defaults.developer_can_initial_push
    ) {
      return level
    }
  }
  return null
}

function parsedDefaults(text: string | null): BranchProtectionDefaults | null {
  if (!text) return null
  try {
    return JSON.parse(text) as BranchProtectionDefaults
  } catch {
    return null
  }
}

/** A namespace's default branch protection: its own setting, else the instance's (`instanceLevel`, a setting). */
export function branchProtectionOf(
  namespace: NamespaceBranchProtection | null,
  instanceLevel: number,
): { level: number; defaults: BranchProtectionDefaults } {
  const stored = parsedDefaults(namespace?.default_branch_protection_defaults ?? null)
  const level = namespace?.default_branch_protection ?? (stored ? levelOfBranchProtection(stored) : null) ?? instanceLevel
  return { level, defaults: stored ?? branchProtectionOfLevel(level) }
}

/** GL Gitlab::Access::BranchProtection#any?: anything is protected at all (not PROTECTION_NONE). */
export function isDefaultBranchProtected(defaults: BranchProtectionDefaults): boolean {
  return levelOfBranchProtection(defaults) !== BranchProtectionLevel.NONE
}
