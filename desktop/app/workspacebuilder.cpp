#include "workspacebuilder.h"

#include "editor/jobeditor.h"
#include "core/session.h"
#include "views/datasetsview.h"
#include "views/mainwindow.h"
#include "views/workersview.h"

#include <QJsonDocument>
#include <QStatusBar>
#include <QTabWidget>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

void WorkspaceBuilder::build(MainWindow &window)
{
    auto *editor = new JobEditor(window.workspace());
    editor->setObjectName(u"jobEditor"_s);
    window.addWorkspaceTab(editor, JobEditor::tr("Editor"));

    auto *workers = new WorkersView(window.workspace());
    workers->setObjectName(u"workersView"_s);
    window.addWorkspaceTab(workers, WorkersView::tr("Workers"));
    QObject::connect(window.session(), &Session::loggedIn, workers,
                     [&window, workers] { workers->setClient(window.session()->client()); });

    auto *datasets = new DatasetsView(window.workspace());
    datasets->setObjectName(u"datasetsView"_s);
    window.addWorkspaceTab(datasets, DatasetsView::tr("Datasets"));
    QObject::connect(window.session(), &Session::loggedIn, datasets,
                     [&window, datasets] { datasets->setClient(window.session()->client()); });

    QObject::connect(editor, &JobEditor::submitRequested, &window,
                     [&window](const JobSpec &spec) { window.openSubmitWizard(spec); });
    QObject::connect(editor, &JobEditor::fileDone, &window, [&window](const QString &message) {
        window.statusBar()->showMessage(message, 8000);
    });
    // New job: the editor's job when it is valid, else the DDL training template.
    QObject::connect(&window, &MainWindow::newJobRequested, &window, [&window, editor] {
        if (!editor->spec())
            editor->loadTemplate(u"ddl-training"_s);
        if (editor->spec())
            window.openSubmitWizard(*editor->spec());
    });
    QObject::connect(&window, &MainWindow::cloneRequested, &window,
                     [&window, editor](const QJsonObject &spec) {
                         editor->setText(QString::fromUtf8(QJsonDocument(spec).toJson()));
                         window.workspace()->setCurrentWidget(editor);
                     });
}

} // namespace ddl::desktop
