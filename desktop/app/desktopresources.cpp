#include "desktopresources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be used outside any namespace.
static void initResourcesOnce()
{
    Q_INIT_RESOURCE(desktop);
}

namespace ddl::desktop {

void initDesktopResources()
{
    static const bool done = (initResourcesOnce(), true);
    Q_UNUSED(done)
}

} // namespace ddl::desktop
