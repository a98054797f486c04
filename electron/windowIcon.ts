// The window's icon: the app icon electron-builder packs (resources/icons), shown in the taskbar
// and window switcher where the platform takes it from the window (Linux, Windows).
import { join } from "node:path";

/** The icon file of the app whose folder is `appRoot` (`app.getAppPath()`). */
export function windowIconPath(appRoot: string): string {
  return join(appRoot, "resources", "icons", "icon.png");
}
