#include "workspacebuilder.h"

#include "views/mainwindow.h"

namespace ddl::desktop {

void WorkspaceBuilder::build(MainWindow &window)
{
    Q_UNUSED(window)
}

} // namespace ddl::desktop
