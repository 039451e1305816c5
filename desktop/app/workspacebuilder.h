#pragma once

namespace ddl::desktop {

class MainWindow;

// Plugs the screens that live beside the job list into the main window (editor, wizard,
// workers, datasets, artifacts), so that tests build the same window the application shows.
class WorkspaceBuilder
{
public:
    // Registers addTabs with the window, which runs it now and on every rebuild of its views.
    static void build(MainWindow &window);

private:
    static void addTabs(MainWindow &window);
};

} // namespace ddl::desktop
