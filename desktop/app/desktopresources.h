#pragma once

namespace ddl::desktop {

// Registers the resources compiled into the static ddl_desktop_core (icons, templates,
// translations): a static library's resources are not found until someone asks for them.
void initDesktopResources();

} // namespace ddl::desktop
