import type { Tier } from '../config/index.js'
import { isAdmin, type Caller } from './caller.js'

/** Membership roles (GitLab Gitlab::Access). */
export const AccessLevel = {
  NONE: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  PLANNER: 15,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const

/** The access levels a membership may have. */
export const MEMBER_ACCESS_LEVELS: readonly number[] = [5, 10, 15, 20, 30, 40, 50]

const ROLE_NAMES: Record<number, string> = {
  [AccessLevel.MINIMAL_ACCESS]: 'Minimal Access',
  [AccessLevel.GUEST]: 'Guest',
  [AccessLevel.PLANNER]: 'Planner',
  [AccessLevel.REPORTER]: 'Reporter',
  [AccessLevel.DEVELOPER]: 'Developer',
  [AccessLevel.MAINTAINER]: 'Maintainer',
  [AccessLevel.OWNER]: 'Owner',
}

/** A role's name by access level, as GitLab words it in messages and hooks (Gitlab::Access `human_access`). */
export function roleName(level: number): string {
  return ROLE_NAMES[level] ?? String(level)
}

export const Visibility = { PRIVATE: 0, INTERNAL: 10, PUBLIC: 20 } as const
export type VisibilityName = 'private' | 'internal' | 'public'
export const VISIBILITY_NAMES: readonly VisibilityName[] = ['private', 'internal', 'public']

export function visibilityName(level: number): VisibilityName {
  return level >= Visibility.PUBLIC ? 'public' : level >= Visibility.INTERNAL ? 'internal' : 'private'
}

export function visibilityLevel(name: VisibilityName): number {
  return name === 'public' ? Visibility.PUBLIC : name === 'internal' ? Visibility.INTERNAL : Visibility.PRIVATE
}

/** Project feature access levels (GitLab ProjectFeature). */
export const FeatureAccess = { DISABLED: 0, PRIVATE: 10, ENABLED: 20, PUBLIC: 30 } as const
export type FeatureAccessName = 'disabled' | 'private' | 'enabled' | 'public'
export const FEATURE_ACCESS_NAMES: readonly FeatureAccessName[] = ['disabled', 'private', 'enabled', 'public']

export function featureAccessName(level: number): FeatureAccessName {
  return FEATURE_ACCESS_NAMES[Math.max(0, Math.min(3, Math.floor(level / 10)))]
}

export function featureAccessLevel(name: FeatureAccessName): number {
  return FEATURE_ACCESS_NAMES.indexOf(name) * 10
}

const TIER_RANK: Record<Tier, number> = { free: 0, premium: 1, ultimate: 2 }

export function tierIncludes(tier: Tier, needed: Tier): boolean {
  return TIER_RANK[tier] >= TIER_RANK[needed]
}

/**
 * What the access core knows about one caller and one project or group: the resource's visibility and
 * the caller's effective role on it (the highest of direct and inherited memberships, or Owner of a
 * personal namespace). `descendantAccess` says the caller belongs to something inside a group, which
 * lets them see the group (GitLab GroupPolicy `has_projects`).
 */
export interface Access {
  caller: Caller
  tier: Tier
  visibilityLevel: number
  level: number
  descendantAccess: boolean
}

/**
 * Whether the caller can see the resource at all: GitLab's `read_project` / `read_group`. Public is for
 * everyone, internal for any signed-in user who is not external, private for members; admins see all.
 */
export function canRead(access: Access): boolean {
  const { caller } = access
  if (isAdmin(caller)) return true
  if (access.level >= AccessLevel.GUEST || access.descendantAccess) return true
  if (access.visibilityLevel >= Visibility.PUBLIC) return true
  if (access.visibilityLevel >= Visibility.INTERNAL) return caller.user !== null && caller.user.external === 0
  return false
}

/** A role the caller must hold (or be an admin), optionally only on a tier; NONE asks only that they can see the resource. */
export interface Requirement {
  level: number
  tier?: Tier
}

/** Every "may this caller do X" question that depends on role: readable first, then role, tier and admin. */
export function meets(access: Access, requirement: Requirement): boolean {
  if (requirement.tier && !tierIncludes(access.tier, requirement.tier)) return false
  if (!canRead(access)) return false
  if (requirement.level <= AccessLevel.NONE || isAdmin(access.caller)) return true
  return access.caller.user !== null && access.level >= requirement.level
}

/**
 * A project feature (issues, repository, …) as GitLab's `feature_available?`: disabled for nobody
 * (admins included), private for members, enabled for whoever can read the project, public for everyone.
 */
export function canUseFeature(access: Access, featureLevel: number, memberLevel: number = AccessLevel.GUEST): boolean {
  if (featureLevel <= FeatureAccess.DISABLED) return false
  if (featureLevel >= FeatureAccess.PUBLIC) return true
  if (!canRead(access)) return false
  if (featureLevel >= FeatureAccess.ENABLED) return true
  return isAdmin(access.caller) || access.level >= memberLevel
}
