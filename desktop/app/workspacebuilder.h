#pragma once

namespace ddl::desktop {

class MainWindow;

// Plugs the screens that live beside the job list into the main window (editor, wizard,
// workers, datasets, artifacts), so that tests build the same window the application shows.
class WorkspaceBuilder
{
public:
    static void build(MainWindow &window);
};

} // namespace ddl::desktop
