/** The approval's warning line for paths outside the project (`approval.requested.outsideProject`). */
import { t } from "../../i18n/i18n.ts";

export function outsideProjectLine(paths: readonly string[]): string {
  const list = paths.join(", ");
  return paths.length === 1 ? t("approval.outsideProjectOne", { path: list }) : t("approval.outsideProjectMany", { paths: list });
}
