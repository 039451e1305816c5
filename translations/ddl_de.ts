<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ErrorText</name>
    <message>
        <source>Cannot reach the server. Check the address and that ddl-server is running.
(%1)</source>
        <translation>Der Server ist nicht erreichbar. Prüfen Sie die Adresse und ob ddl-server läuft.
(%1)</translation>
    </message>
    <message>
        <source>The server did not answer in time. Check your network and try again.</source>
        <translation>Der Server hat nicht rechtzeitig geantwortet. Prüfen Sie Ihr Netzwerk und versuchen Sie es erneut.</translation>
    </message>
    <message>
        <source>Your session has expired. Log in again.</source>
        <translation>Ihre Sitzung ist abgelaufen. Melden Sie sich erneut an.</translation>
    </message>
    <message>
        <source>The server presented a different certificate than the one you trusted. If it was replaced on purpose, remove the pin in the connection settings; otherwise do not connect.</source>
        <translation>Der Server zeigt ein anderes Zertifikat als das, dem Sie vertraut haben. Wurde es absichtlich ersetzt, entfernen Sie die Fixierung in den Verbindungseinstellungen; andernfalls verbinden Sie sich nicht.</translation>
    </message>
    <message>
        <source>The server&apos;s certificate is not trusted. Pin its fingerprint or choose its CA file.</source>
        <translation>Dem Zertifikat des Servers wird nicht vertraut. Fixieren Sie seinen Fingerabdruck oder wählen Sie seine CA-Datei.</translation>
    </message>
    <message>
        <source>Too many attempts: %1</source>
        <translation>Zu viele Versuche: %1</translation>
    </message>
    <message>
        <source>Conflict: %1</source>
        <translation>Konflikt: %1</translation>
    </message>
    <message>
        <source>The request failed (%1).</source>
        <translation>Die Anfrage ist fehlgeschlagen (%1).</translation>
    </message>
    <message>
        <source>Wrong email or password.</source>
        <translation>E-Mail oder Passwort falsch.</translation>
    </message>
</context>
<context>
    <name>FolderDrop</name>
    <message>
        <source>Drop a folder from the file manager here.</source>
        <translation>Ziehen Sie einen Ordner aus dem Dateimanager hierher.</translation>
    </message>
    <message numerus="yes">
        <source>Drop one folder at a time (%n items were dropped).</source>
        <translation>
            <numerusform>Legen Sie jeweils nur einen Ordner ab (%n Element wurde abgelegt).</numerusform>
            <numerusform>Legen Sie jeweils nur einen Ordner ab (%n Elemente wurden abgelegt).</numerusform>
        </translation>
    </message>
    <message>
        <source>Only a folder on this computer can be dropped here.</source>
        <translation>Hier kann nur ein Ordner auf diesem Computer abgelegt werden.</translation>
    </message>
    <message>
        <source>%1 is not a folder. Drop the folder that holds it.</source>
        <translation>%1 ist kein Ordner. Legen Sie den Ordner ab, der die Datei enthält.</translation>
    </message>
</context>
<context>
    <name>GitCheck</name>
    <message>
        <source>%1 is not in a git repository. DDL packages the code of the last commit: run git init, add and commit your code, then check again.</source>
        <translation>%1 liegt in keinem git-Repository. DDL verpackt den Code des letzten Commits: führen Sie git init aus, fügen Sie Ihren Code hinzu, committen Sie ihn und prüfen Sie erneut.</translation>
    </message>
</context>
<context>
    <name>JobStateStyle</name>
    <message>
        <source>Waiting</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Succeeded</source>
        <translation>Erfolgreich</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Gestoppt</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
</context>
<context>
    <name>JobTemplates</name>
    <message>
        <source>Hello world (a shell command)</source>
        <translation>Hallo Welt (ein Shell-Befehl)</translation>
    </message>
    <message>
        <source>DDL training (main.py of your repository)</source>
        <translation>DDL-Training (main.py Ihres Repositorys)</translation>
    </message>
    <message>
        <source>Parameter server and workers</source>
        <translation>Parameterserver und Worker</translation>
    </message>
</context>
<context>
    <name>StopConfirmation</name>
    <message numerus="yes">
        <source> and %n more</source>
        <translation>
            <numerusform> und %n weiterer</numerusform>
            <numerusform> und %n weitere</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)?</source>
        <translation>
            <numerusform>%n Job anhalten?</numerusform>
            <numerusform>%n Jobs anhalten?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)? %1</source>
        <translation>
            <numerusform>%n Job anhalten? %1</numerusform>
            <numerusform>%n Jobs anhalten? %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Running tasks are killed and the job ends as Stopped; its outputs so far are kept. This cannot be undone.</source>
        <translation>Laufende Tasks werden beendet und der Job endet als Angehalten; seine bisherigen Ausgaben bleiben erhalten. Das lässt sich nicht rückgängig machen.</translation>
    </message>
    <message numerus="yes">
        <source>Stop job(s)</source>
        <translation>
            <numerusform>Job anhalten</numerusform>
            <numerusform>Jobs anhalten</numerusform>
        </translation>
    </message>
    <message>
        <source>Keep running</source>
        <translation>Weiterlaufen lassen</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ArtifactBrowser</name>
    <message>
        <source>Select a file to preview it.</source>
        <translation>Wählen Sie eine Datei für die Vorschau.</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Download selected…</source>
        <translation>Auswahl herunterladen…</translation>
    </message>
    <message>
        <source>Download all…</source>
        <translation>Alles herunterladen…</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>Ordner öffnen</translation>
    </message>
    <message>
        <source>The job has no outputs (yet). Files written to model_output_dir appear here when it ends.</source>
        <translation>Der Job hat (noch) keine Ausgaben. Dateien in model_output_dir erscheinen hier, wenn er endet.</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n Datei</numerusform>
            <numerusform>%n Dateien</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is a binary file; download it to open it.</source>
        <translation>%1 ist eine Binärdatei; laden Sie sie herunter, um sie zu öffnen.</translation>
    </message>
    <message>
        <source>(only the first %1 KiB are shown)</source>
        <translation>(nur die ersten %1 KiB werden angezeigt)</translation>
    </message>
    <message>
        <source>Select the files to download first.</source>
        <translation>Wählen Sie zuerst die Dateien zum Herunterladen.</translation>
    </message>
    <message>
        <source>Download to</source>
        <translation>Herunterladen nach</translation>
    </message>
    <message>
        <source>Downloading…</source>
        <translation>Wird heruntergeladen…</translation>
    </message>
    <message numerus="yes">
        <source>Downloaded %n file(s) to %1</source>
        <translation>
            <numerusform>%n Datei nach %1 heruntergeladen</numerusform>
            <numerusform>%n Dateien nach %1 heruntergeladen</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not download: %1</source>
        <translation>Download fehlgeschlagen: %1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ArtifactModel</name>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ConnectPage</name>
    <message>
        <source>&lt;h2&gt;Connect to a DDL server&lt;/h2&gt;</source>
        <translation>&lt;h2&gt;Mit einem DDL-Server verbinden&lt;/h2&gt;</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>Server</translation>
    </message>
    <message>
        <source>https://host:8443</source>
        <translation>https://host:8443</translation>
    </message>
    <message>
        <source>optional: the server&apos;s certificate or CA file</source>
        <translation>optional: das Zertifikat des Servers oder eine CA-Datei</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA-Zertifikat</translation>
    </message>
    <message>
        <source>Certificates (*.crt *.pem)</source>
        <translation>Zertifikate (*.crt *.pem)</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Verbinden</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>Adresse:</translation>
    </message>
    <message>
        <source>CA file:</source>
        <translation>CA-Datei:</translation>
    </message>
    <message>
        <source>First connection to this server</source>
        <translation>Erste Verbindung zu diesem Server</translation>
    </message>
    <message>
        <source>Trust this certificate</source>
        <translation>Diesem Zertifikat vertrauen</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>Konto</translation>
    </message>
    <message>
        <source>Log in</source>
        <translation>Anmelden</translation>
    </message>
    <message>
        <source>Register</source>
        <translation>Registrieren</translation>
    </message>
    <message>
        <source>Email:</source>
        <translation>E-Mail:</translation>
    </message>
    <message>
        <source>Password:</source>
        <translation>Passwort:</translation>
    </message>
    <message>
        <source>Logging in…</source>
        <translation>Anmeldung läuft…</translation>
    </message>
    <message>
        <source>Choose a password of at least 8 characters.</source>
        <translation>Wählen Sie ein Passwort mit mindestens 8 Zeichen.</translation>
    </message>
    <message>
        <source>Creating the account…</source>
        <translation>Konto wird angelegt…</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Verbindung wird hergestellt…</translation>
    </message>
    <message>
        <source>The server presents a certificate no one vouches for yet. Compare its fingerprint with the one the server printed at start (ddl-server logs it) before you trust it:

%1</source>
        <translation>Der Server zeigt ein Zertifikat, für das noch niemand bürgt. Vergleichen Sie seinen Fingerabdruck mit dem, den der Server beim Start ausgegeben hat (ddl-server protokolliert ihn), bevor Sie ihm vertrauen:

%1</translation>
    </message>
    <message>
        <source>Connected to %1.</source>
        <translation>Verbunden mit %1.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetModel</name>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>Dateien</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Uploaded</source>
        <translation>Hochgeladen</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetPage</name>
    <message>
        <source>Dataset folder</source>
        <translation>Datensatzordner</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>Datensatz</translation>
    </message>
    <message>
        <source>The folder your main() reads as dataset_dir. Leave it empty for none.</source>
        <translation>Der Ordner, den Ihr main() als dataset_dir liest. Leer lassen für keinen.</translation>
    </message>
    <message>
        <source>Dataset folder:</source>
        <translation>Datensatzordner:</translation>
    </message>
    <message>
        <source>No dataset.</source>
        <translation>Kein Datensatz.</translation>
    </message>
    <message>
        <source>%1 is not a folder.</source>
        <translation>%1 ist kein Ordner.</translation>
    </message>
    <message>
        <source>Counting…</source>
        <translation>Wird gezählt…</translation>
    </message>
    <message>
        <source>A folder on this computer</source>
        <translation>Ein Ordner auf diesem Computer</translation>
    </message>
    <message>
        <source>Use:</source>
        <translation>Verwenden:</translation>
    </message>
    <message numerus="yes">
        <source>%1 on the server (%n file(s), %2)</source>
        <translation>
            <numerusform>%1 auf dem Server (%n Datei, %2)</numerusform>
            <numerusform>%1 auf dem Server (%n Dateien, %2)</numerusform>
        </translation>
    </message>
    <message>
        <source>The server has this dataset already: nothing is uploaded.</source>
        <translation>Der Server hat diesen Datensatz bereits: nichts wird hochgeladen.</translation>
    </message>
    <message>
        <source>Asking the server which files it has…</source>
        <translation>Der Server wird gefragt, welche Dateien er hat…</translation>
    </message>
    <message numerus="yes">
        <source>To upload: %1 (%2 of %n file(s)); the server has the rest.</source>
        <translation>
            <numerusform>Hochzuladen: %1 (%2 von %n Datei); den Rest hat der Server.</numerusform>
            <numerusform>Hochzuladen: %1 (%2 von %n Dateien); den Rest hat der Server.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s), %1.</source>
        <translation>
            <numerusform>%n Datei, %1.</numerusform>
            <numerusform>%n Dateien, %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetsView</name>
    <message>
        <source>Datasets</source>
        <translation>Datensätze</translation>
    </message>
    <message>
        <source>File being sent</source>
        <translation>Gesendete Datei</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>Drop a folder here to upload it as a dataset.</source>
        <translation>Ziehen Sie einen Ordner hierher, um ihn als Datensatz hochzuladen.</translation>
    </message>
    <message>
        <source>Upload folder…</source>
        <translation>Ordner hochladen…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Dataset folder</source>
        <translation>Datensatzordner</translation>
    </message>
    <message>
        <source>Delete dataset</source>
        <translation>Datensatz löschen</translation>
    </message>
    <message>
        <source>Delete the dataset %1? Jobs that used it keep their data.</source>
        <translation>Datensatz %1 löschen? Jobs, die ihn verwendet haben, behalten ihre Daten.</translation>
    </message>
    <message>
        <source>Wait for the current upload to finish.</source>
        <translation>Warten Sie, bis der aktuelle Upload fertig ist.</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>%1 wird gelesen…</translation>
    </message>
    <message>
        <source>The server has every file already.</source>
        <translation>Der Server hat bereits alle Dateien.</translation>
    </message>
    <message numerus="yes">
        <source>Sending %n file(s) the server does not have…</source>
        <translation>
            <numerusform>Sende %n Datei, die der Server nicht hat…</numerusform>
            <numerusform>Sende %n Dateien, die der Server nicht hat…</numerusform>
        </translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>wartet</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>gesendet</translation>
    </message>
    <message>
        <source>Deleted %1.</source>
        <translation>%1 gelöscht.</translation>
    </message>
    <message numerus="yes">
        <source>Dataset %1: %n file(s), %2 sent.</source>
        <translation>
            <numerusform>Datensatz %1: %n Datei, %2 gesendet.</numerusform>
            <numerusform>Datensatz %1: %n Dateien, %2 gesendet.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::FailureSummary</name>
    <message>
        <source>Exit code 127: the command was not found. Check the command&apos;s spelling and that the image (or the worker&apos;s Python) has the program.</source>
        <translation>Exit-Code 127: Der Befehl wurde nicht gefunden. Prüfen Sie die Schreibweise und ob das Image (oder das Python des Workers) das Programm hat.</translation>
    </message>
    <message>
        <source>Exit code 126: the command is not executable. Check its file mode, or run it through its interpreter (python3 script.py).</source>
        <translation>Exit-Code 126: Der Befehl ist nicht ausführbar. Prüfen Sie die Dateirechte oder starten Sie ihn über seinen Interpreter (python3 script.py).</translation>
    </message>
    <message>
        <source>Exit code 137: the task was killed (SIGKILL), most often for using more memory than it asked for. Ask for more memory (memoryMB), or use less.</source>
        <translation>Exit-Code 137: Der Task wurde beendet (SIGKILL), meist weil er mehr Speicher brauchte als angefordert. Fordern Sie mehr Speicher an (memoryMB) oder brauchen Sie weniger.</translation>
    </message>
    <message>
        <source>Exit code 143: the task was terminated (SIGTERM): stopped, or over its time.</source>
        <translation>Exit-Code 143: Der Task wurde beendet (SIGTERM): angehalten oder über seiner Zeit.</translation>
    </message>
    <message>
        <source>The task&apos;s last error lines are below; the whole log is in Logs (Stream: stderr).</source>
        <translation>Unten stehen die letzten Fehlerzeilen des Tasks; das ganze Log ist unter Logs (Stream: stderr).</translation>
    </message>
    <message>
        <source>attempt %1 of %2</source>
        <translation>Versuch %1 von %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;The job failed&lt;/b&gt; (%1). %2</source>
        <translation>&lt;b&gt;Der Job ist fehlgeschlagen&lt;/b&gt; (%1). %2</translation>
    </message>
    <message>
        <source>%1 #%2</source>
        <translation>%1 #%2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Task %1 failed with exit code %2&lt;/b&gt; on worker %3 (%4).</source>
        <translation>&lt;b&gt;Task %1 ist mit Exit-Code %2 fehlgeschlagen&lt;/b&gt; auf Worker %3 (%4).</translation>
    </message>
    <message>
        <source>&lt;b&gt;Task %1 failed&lt;/b&gt; on worker %2 (%3).</source>
        <translation>&lt;b&gt;Task %1 ist fehlgeschlagen&lt;/b&gt; auf Worker %2 (%3).</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::FolderField</name>
    <message>
        <source>Drop a folder here or browse</source>
        <translation>Ordner hierher ziehen oder durchsuchen</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::GitPage</name>
    <message>
        <source>Code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>DDL packages the last commit of the repository, never the files as they are on disk.</source>
        <translation>DDL verpackt den letzten Commit des Repositorys, nie die Dateien, wie sie auf der Platte liegen.</translation>
    </message>
    <message>
        <source>Largest files</source>
        <translation>Größte Dateien</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>Erneut prüfen</translation>
    </message>
    <message>
        <source>Checking the repository and packaging a preview…</source>
        <translation>Repository wird geprüft und eine Vorschau gepackt…</translation>
    </message>
    <message>
        <source>The working tree of %1 has changes that are not committed. Commit them, or put them aside with &lt;code&gt;git stash -u&lt;/code&gt;; files that should never be sent belong in .gitignore. Then press Check again.</source>
        <translation>Der Arbeitsbaum von %1 hat nicht committete Änderungen. Committen Sie sie oder legen Sie sie mit &lt;code&gt;git stash -u&lt;/code&gt; beiseite; Dateien, die nie gesendet werden sollen, gehören in .gitignore. Drücken Sie dann „Erneut prüfen“.</translation>
    </message>
    <message numerus="yes">
        <source>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n file(s), %3 unpacked; the package is %4.</source>
        <translation>
            <numerusform>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n Datei, %3 entpackt; das Paket ist %4 groß.</numerusform>
            <numerusform>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n Dateien, %3 entpackt; das Paket ist %4 groß.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::HomeView</name>
    <message>
        <source>Home</source>
        <translation>Start</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>My jobs</source>
        <translation>Meine Jobs</translation>
    </message>
    <message>
        <source>Waiting, and why</source>
        <translation>Wartend, und warum</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>Job</translation>
    </message>
    <message>
        <source>Why it waits</source>
        <translation>Warum er wartet</translation>
    </message>
    <message>
        <source>Asking the server…</source>
        <translation>Frage den Server…</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n worker(s) online. GPUs: %2 in use, %3 free, of %4.</source>
        <translation>
            <numerusform>%1 von %n Worker online. GPUs: %2 belegt, %3 frei, von %4.</numerusform>
            <numerusform>%1 von %n Workern online. GPUs: %2 belegt, %3 frei, von %4.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ImageModel</name>
    <message>
        <source>Image</source>
        <translation>Image</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Pushed</source>
        <translation>Hochgeladen</translation>
    </message>
    <message>
        <source>Digest</source>
        <translation>Digest</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ImagesView</name>
    <message>
        <source>Images</source>
        <translation>Images</translation>
    </message>
    <message>
        <source>Remove image</source>
        <translation>Image entfernen</translation>
    </message>
    <message>
        <source>Remove the image ddl://%1 from the server? Jobs that name it can no longer start.</source>
        <translation>Das Image ddl://%1 vom Server entfernen? Jobs, die es nennen, können dann nicht mehr starten.</translation>
    </message>
    <message>
        <source>Push a local podman image to run jobs in it as ddl://NAME.</source>
        <translation>Laden Sie ein lokales podman-Image hoch, um Jobs darin als ddl://NAME auszuführen.</translation>
    </message>
    <message>
        <source>Push image…</source>
        <translation>Image hochladen…</translation>
    </message>
    <message>
        <source>Cancel push</source>
        <translation>Hochladen abbrechen</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Wait for the current push to finish.</source>
        <translation>Warten Sie, bis das laufende Hochladen fertig ist.</translation>
    </message>
    <message>
        <source>Saving %1 with podman…</source>
        <translation>%1 wird mit podman gespeichert…</translation>
    </message>
    <message>
        <source>Sending the layers of %1 (%2) the server does not have…</source>
        <translation>Die Schichten von %1 (%2), die der Server noch nicht hat, werden gesendet…</translation>
    </message>
    <message>
        <source>Image ddl://%1 is on the server (%2); jobs can name it now.</source>
        <translation>Das Image ddl://%1 ist auf dem Server (%2); Jobs können es jetzt nennen.</translation>
    </message>
    <message>
        <source>Removed ddl://%1.</source>
        <translation>ddl://%1 entfernt.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobDetailView</name>
    <message>
        <source>Cancel job</source>
        <translation>Job abbrechen</translation>
    </message>
    <message>
        <source>Clone into editor</source>
        <translation>In den Editor klonen</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>Logs</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>Metriken</translation>
    </message>
    <message>
        <source>Artifacts</source>
        <translation>Artefakte</translation>
    </message>
    <message>
        <source>State: &lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/span&gt;</source>
        <translation>Status: &lt;span style=&quot;color:%1&quot;&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Submitted %1</source>
        <translation>Abgeschickt %1</translation>
    </message>
    <message>
        <source>started %1</source>
        <translation>gestartet %1</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>attempt %1 of %2</source>
        <translation>Versuch %1 von %2</translation>
    </message>
    <message>
        <source>Config</source>
        <translation>Konfiguration</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>Checkpoint of %1 #%2: from attempt %3 at %4, %5</source>
        <translation>Checkpoint von %1 #%2: aus Versuch %3 um %4, %5</translation>
    </message>
    <message numerus="yes">
        <source>attempt %1 (%n preempted)</source>
        <translation>
            <numerusform>Versuch %1 (%n verdrängt)</numerusform>
            <numerusform>Versuch %1 (%n verdrängt)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobEditor</name>
    <message>
        <source>Editor</source>
        <translation>Editor</translation>
    </message>
    <message>
        <source>Start from a template…</source>
        <translation>Mit einer Vorlage beginnen…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>Importieren…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Submit…</source>
        <translation>Absenden…</translation>
    </message>
    <message>
        <source>DDL (main.py of a repository)</source>
        <translation>DDL (main.py eines Repositorys)</translation>
    </message>
    <message>
        <source>OpenPAI (commands)</source>
        <translation>OpenPAI (Befehle)</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>Tasks</translation>
    </message>
    <message>
        <source>CPUs</source>
        <translation>CPUs</translation>
    </message>
    <message>
        <source>Memory (MB)</source>
        <translation>Speicher (MB)</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>Add role</source>
        <translation>Rolle hinzufügen</translation>
    </message>
    <message>
        <source>Remove role</source>
        <translation>Rolle entfernen</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>Art:</translation>
    </message>
    <message>
        <source>Job name:</source>
        <translation>Jobname:</translation>
    </message>
    <message>
        <source>Image:</source>
        <translation>Image:</translation>
    </message>
    <message>
        <source>Retries:</source>
        <translation>Wiederholungen:</translation>
    </message>
    <message>
        <source>Task roles:</source>
        <translation>Task-Rollen:</translation>
    </message>
    <message>
        <source>Import a job</source>
        <translation>Job importieren</translation>
    </message>
    <message>
        <source>Jobs (*.json *.yaml *.yml)</source>
        <translation>Jobs (*.json *.yaml *.yml)</translation>
    </message>
    <message>
        <source>Export the job</source>
        <translation>Job exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json);;DDL task.yaml (*.yaml)</source>
        <translation>JSON (*.json);;DDL task.yaml (*.yaml)</translation>
    </message>
    <message>
        <source>JSON syntax: %1</source>
        <translation>JSON-Syntax: %1</translation>
    </message>
    <message>
        <source>the job must be a JSON object { ... }</source>
        <translation>der Job muss ein JSON-Objekt { ... } sein</translation>
    </message>
    <message>
        <source>line %1: %2%3</source>
        <translation>Zeile %1: %2%3</translation>
    </message>
    <message>
        <source>The job is valid.</source>
        <translation>Der Job ist gültig.</translation>
    </message>
    <message>
        <source>note: %1</source>
        <translation>Hinweis: %1</translation>
    </message>
    <message>
        <source>%1 is not a valid task.yaml:
%2</source>
        <translation>%1 ist keine gültige task.yaml:
%2</translation>
    </message>
    <message>
        <source>Imported %1</source>
        <translation>%1 importiert</translation>
    </message>
    <message>
        <source>Only a valid DDL job can be written as task.yaml.</source>
        <translation>Nur ein gültiger DDL-Job kann als task.yaml geschrieben werden.</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 gespeichert</translation>
    </message>
    <message>
        <source>Could not write %1</source>
        <translation>%1 konnte nicht geschrieben werden</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobListModel</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>Tasks</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>Wiederholungen</translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation>Abgeschickt</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priorität</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobListView</name>
    <message>
        <source>All states</source>
        <translation>Alle Status</translation>
    </message>
    <message>
        <source>Filter by name or uuid</source>
        <translation>Nach Name oder UUID filtern</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>New job…</source>
        <translation>Neuer Job…</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s)</source>
        <translation>
            <numerusform>%n Job</numerusform>
            <numerusform>%n Jobs</numerusform>
        </translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
    <message>
        <source>Clone into the editor</source>
        <translation>In den Editor klonen</translation>
    </message>
    <message>
        <source>Copy uuid</source>
        <translation>UUID kopieren</translation>
    </message>
    <message>
        <source>Stop selected jobs</source>
        <translation>Ausgewählte Jobs anhalten</translation>
    </message>
    <message>
        <source>No jobs yet. Click &quot;New job…&quot; to submit a project, or run &quot;ddlcli submit&quot; in the project&apos;s folder.</source>
        <translation>Noch keine Jobs. Klicken Sie auf „Neuer Job…“, um ein Projekt abzuschicken, oder führen Sie „ddlcli submit“ im Ordner des Projekts aus.</translation>
    </message>
    <message>
        <source>No job matches the filter.</source>
        <translation>Kein Job passt zum Filter.</translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)…</source>
        <translation>
            <numerusform>%n Job anhalten…</numerusform>
            <numerusform>%n Jobs anhalten…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobSubmission</name>
    <message>
        <source>Not connected to a server.</source>
        <translation>Nicht mit einem Server verbunden.</translation>
    </message>
    <message>
        <source>Cannot create a temporary folder: %1</source>
        <translation>Temporärer Ordner kann nicht angelegt werden: %1</translation>
    </message>
    <message>
        <source>The repository has changes that are not committed. Commit them (or stash them), then submit again.
%1</source>
        <translation>Das Repository hat nicht committete Änderungen. Committen (oder stashen) Sie sie und senden Sie erneut ab.
%1</translation>
    </message>
    <message>
        <source>The server refused the job:
%1</source>
        <translation>Der Server hat den Job abgelehnt:
%1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobUtilisationView</name>
    <message>
        <source>This server keeps no utilisation samples (it is older than this client).</source>
        <translation>Dieser Server speichert keine Auslastungsmessungen (er ist älter als dieses Programm).</translation>
    </message>
    <message>
        <source>No samples yet: the job waits for a worker.</source>
        <translation>Noch keine Messungen: Der Job wartet auf einen Worker.</translation>
    </message>
    <message>
        <source>No samples: the job&apos;s workers reported none while it ran.</source>
        <translation>Keine Messungen: Die Worker des Jobs haben während des Laufs keine gemeldet.</translation>
    </message>
    <message>
        <source>No samples yet: workers report CPU, memory and GPU use every few seconds while tasks run.</source>
        <translation>Noch keine Messungen: Worker melden CPU-, Speicher- und GPU-Nutzung alle paar Sekunden, solange Tasks laufen.</translation>
    </message>
    <message>
        <source>The worker reports no GPU readings for these tasks (no nvidia-smi, or GPUs declared with --gpus).</source>
        <translation>Der Worker meldet für diese Tasks keine GPU-Werte (kein nvidia-smi, oder GPUs mit --gpus angegeben).</translation>
    </message>
    <message>
        <source>The tasks of this job use no GPU.</source>
        <translation>Die Tasks dieses Jobs nutzen keine GPU.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::LedgerPanel</name>
    <message>
        <source>Select a worker to see what it gave.</source>
        <translation>Wählen Sie einen Worker, um zu sehen, was er beigetragen hat.</translation>
    </message>
    <message>
        <source>GPU-hours given: %1</source>
        <translation>Gegebene GPU-Stunden: %1</translation>
    </message>
    <message>
        <source>CPU-hours given: %1 (CPU time used: %2 h)</source>
        <translation>Gegebene CPU-Stunden: %1 (genutzte CPU-Zeit: %2 h)</translation>
    </message>
    <message>
        <source>Tasks run: %1 (%2 succeeded, %3 failed)</source>
        <translation>Ausgeführte Tasks: %1 (%2 erfolgreich, %3 fehlgeschlagen)</translation>
    </message>
    <message>
        <source>Jobs run: %1</source>
        <translation>Ausgeführte Jobs: %1</translation>
    </message>
    <message>
        <source>Preemptions: %1</source>
        <translation>Verdrängungen: %1</translation>
    </message>
    <message>
        <source>Downloaded: %1</source>
        <translation>Heruntergeladen: %1</translation>
    </message>
    <message>
        <source>Uploaded: %1</source>
        <translation>Hochgeladen: %1</translation>
    </message>
    <message>
        <source>Only a worker&apos;s owner sees what it gave, and this worker is not yours.</source>
        <translation>Nur der Eigentümer eines Workers sieht, was er beigetragen hat, und dieser Worker gehört nicht Ihnen.</translation>
    </message>
    <message>
        <source>%1 gave:</source>
        <translation>%1 hat beigetragen:</translation>
    </message>
    <message>
        <source>This server keeps no contribution ledger (it is older than this client).</source>
        <translation>Dieser Server führt kein Beitragsbuch (er ist älter als dieser Client).</translation>
    </message>
    <message>
        <source>You own no workers. A worker is yours when it enrolled with a token made for you (ddl-server token create --owner).</source>
        <translation>Sie besitzen keine Worker. Ein Worker gehört Ihnen, wenn er sich mit einem für Sie erstellten Token angemeldet hat (ddl-server token create --owner).</translation>
    </message>
    <message numerus="yes">
        <source>Your %n worker(s) gave:</source>
        <translation>
            <numerusform>Ihr %n Worker hat beigetragen:</numerusform>
            <numerusform>Ihre %n Worker haben beigetragen:</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::LogView</name>
    <message>
        <source>Follow</source>
        <translation>Folgen</translation>
    </message>
    <message>
        <source>Where in the whole log the shown part lies</source>
        <translation>Wo im ganzen Log der angezeigte Teil liegt</translation>
    </message>
    <message>
        <source>Task:</source>
        <translation>Task:</translation>
    </message>
    <message>
        <source>%1–%2 of %3</source>
        <translation>%1–%2 von %3</translation>
    </message>
    <message>
        <source>All</source>
        <translation>Alle</translation>
    </message>
    <message>
        <source>stdout</source>
        <translation>Standardausgabe</translation>
    </message>
    <message>
        <source>stderr</source>
        <translation>Standardfehler</translation>
    </message>
    <message>
        <source>Everything the task wrote, with the worker&apos;s own lines, or only its stdout or stderr</source>
        <translation>Alles, was der Task geschrieben hat, mit den eigenen Zeilen des Workers, oder nur seine Standardausgabe oder Standardfehlerausgabe</translation>
    </message>
    <message>
        <source>Stream:</source>
        <translation>Ausgabe:</translation>
    </message>
    <message>
        <source>Search the whole log</source>
        <translation>Im ganzen Log suchen</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>Vorheriger</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>Nächster</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not in this log</source>
        <translation>„%1“ steht nicht in diesem Log</translation>
    </message>
    <message>
        <source>No earlier match</source>
        <translation>Kein früherer Treffer</translation>
    </message>
    <message>
        <source>No further match</source>
        <translation>Kein weiterer Treffer</translation>
    </message>
    <message>
        <source>Search failed: %1</source>
        <translation>Suche fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Suche läuft…</translation>
    </message>
    <message>
        <source>Match at byte %1</source>
        <translation>Treffer bei Byte %1</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>%1 of more than %2</source>
        <translation>%1 von mehr als %2</translation>
    </message>
    <message>
        <source>%1 of %2 in the first %3 of the log</source>
        <translation>%1 von %2 in den ersten %3 des Logs</translation>
    </message>
    <message>
        <source>%1 of %2 so far, counting…</source>
        <translation>%1 von bisher %2, zählt weiter…</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::MainWindow</name>
    <message>
        <source>DDL</source>
        <translation>DDL</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>Jobs</translation>
    </message>
    <message>
        <source>Job %1 ended</source>
        <translation>Job %1 beendet</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;New job…</source>
        <translation>&amp;Neuer Job…</translation>
    </message>
    <message>
        <source>Log &amp;out</source>
        <translation>&amp;Abmelden</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Sprache</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>Systemsprache</translation>
    </message>
    <message>
        <source>DDL — %1 on %2</source>
        <translation>DDL — %1 auf %2</translation>
    </message>
    <message>
        <source>Logged in as %1</source>
        <translation>Angemeldet als %1</translation>
    </message>
    <message>
        <source>Your session has expired. Log in again.</source>
        <translation>Ihre Sitzung ist abgelaufen. Melden Sie sich erneut an.</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>&amp;Suchen…</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Aktualisieren</translation>
    </message>
    <message>
        <source>&amp;Close job tab</source>
        <translation>Job-Tab s&amp;chließen</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::MessageBar</name>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::MetricChartsView</name>
    <message>
        <source>No metrics yet. Print lines such as
DDL_METRIC {&quot;step&quot;: 10, &quot;loss&quot;: 0.25}
from your training code to see them here.</source>
        <translation>Noch keine Metriken. Geben Sie Zeilen wie
DDL_METRIC {&quot;step&quot;: 10, &quot;loss&quot;: 0.25}
in Ihrem Trainingscode aus, um sie hier zu sehen.</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Task: %1</source>
        <translation>Task: %1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::NavigationList</name>
    <message>
        <source>Open jobs</source>
        <translation>Offene Jobs</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ProjectPage</name>
    <message>
        <source>Project folder</source>
        <translation>Projektordner</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>Projekt</translation>
    </message>
    <message>
        <source>The git repository with your main.py. DDL sends the code of its last commit.</source>
        <translation>Das git-Repository mit Ihrer main.py. DDL sendet den Code des letzten Commits.</translation>
    </message>
    <message>
        <source>Optional: a git repository whose code the commands run in.</source>
        <translation>Optional: ein git-Repository, in dessen Code die Befehle laufen.</translation>
    </message>
    <message>
        <source>Project folder:</source>
        <translation>Projektordner:</translation>
    </message>
    <message>
        <source>%1 has errors; fix them (ddlcli submit reads the same file):
%2</source>
        <translation>%1 enthält Fehler; beheben Sie sie (ddlcli submit liest dieselbe Datei):
%2</translation>
    </message>
    <message numerus="yes">
        <source>Read %1: job %2, %n task(s), dataset %3.</source>
        <translation>
            <numerusform>%1 gelesen: Job %2, %n Task, Datensatz %3.</numerusform>
            <numerusform>%1 gelesen: Job %2, %n Tasks, Datensatz %3.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ddl::desktop::PushImageDialog</name>
    <message>
        <source>Push an image</source>
        <translation>Ein Image hochladen</translation>
    </message>
    <message>
        <source>reading podman&apos;s images…</source>
        <translation>podmans Images werden gelesen…</translation>
    </message>
    <message>
        <source>Push</source>
        <translation>Hochladen</translation>
    </message>
    <message>
        <source>Local image:</source>
        <translation>Lokales Image:</translation>
    </message>
    <message>
        <source>Name on the server: ddl://</source>
        <translation>Name auf dem Server: ddl://</translation>
    </message>
    <message>
        <source>podman lists no image; build one first</source>
        <translation>podman listet kein Image; bauen Sie zuerst eines</translation>
    </message>
    <message>
        <source>Choose a local image or type its reference.</source>
        <translation>Wählen Sie ein lokales Image oder geben Sie seine Referenz ein.</translation>
    </message>
    <message>
        <source>The name may have letters, digits and . _ - (at most 100), starting with a letter or digit.</source>
        <translation>Der Name darf Buchstaben, Ziffern und . _ - enthalten (höchstens 100) und muss mit einem Buchstaben oder einer Ziffer beginnen.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ResourcesPage</name>
    <message>
        <source>Resources</source>
        <translation>Ressourcen</translation>
    </message>
    <message>
        <source>What each task gets. The job starts when all its tasks fit at once.</source>
        <translation>Was jeder Task bekommt. Der Job startet, wenn alle seine Tasks gleichzeitig Platz finden.</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>Job name:</source>
        <translation>Jobname:</translation>
    </message>
    <message>
        <source>Tasks (workers):</source>
        <translation>Tasks (Worker):</translation>
    </message>
    <message>
        <source>GPUs per task:</source>
        <translation>GPUs pro Task:</translation>
    </message>
    <message>
        <source>CPUs per task:</source>
        <translation>CPUs pro Task:</translation>
    </message>
    <message>
        <source>Memory per task:</source>
        <translation>Speicher pro Task:</translation>
    </message>
    <message>
        <source>Retries:</source>
        <translation>Wiederholungen:</translation>
    </message>
    <message>
        <source>for example: python3 train.py --epochs 10</source>
        <translation>zum Beispiel: python3 train.py --epochs 10</translation>
    </message>
    <message>
        <source>not used: DDL calls main(dataset_dir, model_output_dir) in main.py</source>
        <translation>nicht verwendet: DDL ruft main(dataset_dir, model_output_dir) in main.py auf</translation>
    </message>
    <message>
        <source>DDL project: main() in main.py</source>
        <translation>DDL-Projekt: main() in main.py</translation>
    </message>
    <message>
        <source>Command (as OpenPAI runs it)</source>
        <translation>Befehl (wie OpenPAI ihn ausführt)</translation>
    </message>
    <message>
        <source>Runs:</source>
        <translation>Führt aus:</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>Befehl:</translation>
    </message>
    <message>
        <source>A DDL project needs its folder: go back to the first page and choose it, or run a command instead.</source>
        <translation>Ein DDL-Projekt braucht seinen Ordner: Gehen Sie zur ersten Seite zurück und wählen Sie ihn, oder führen Sie stattdessen einen Befehl aus.</translation>
    </message>
    <message>
        <source>Write the command each task runs, or choose a DDL project.</source>
        <translation>Geben Sie den Befehl ein, den jeder Task ausführt, oder wählen Sie ein DDL-Projekt.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ReviewPage</name>
    <message>
        <source>Review</source>
        <translation>Überprüfen</translation>
    </message>
    <message>
        <source>The job exactly as it is sent. Press Submit to start it.</source>
        <translation>Der Job genau so, wie er gesendet wird. Drücken Sie „Absenden“, um ihn zu starten.</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>Absenden</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::Session</name>
    <message>
        <source>%1 holds no PEM certificate. Choose the server&apos;s certificate (DATA_DIR/tls/server.crt) or its CA.</source>
        <translation>%1 enthält kein PEM-Zertifikat. Wählen Sie das Zertifikat des Servers (DATA_DIR/tls/server.crt) oder seine CA.</translation>
    </message>
    <message>
        <source>Connect to a server first.</source>
        <translation>Verbinden Sie sich zuerst mit einem Server.</translation>
    </message>
    <message>
        <source>An account for %1 exists already; log in instead.</source>
        <translation>Ein Konto für %1 existiert bereits; melden Sie sich stattdessen an.</translation>
    </message>
    <message>
        <source>Your session has expired. Log in again.</source>
        <translation>Ihre Sitzung ist abgelaufen. Melden Sie sich erneut an.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::StateTimeline</name>
    <message>
        <source>%1 at %2</source>
        <translation>%1 um %2</translation>
    </message>
    <message>
        <source>Running, attempt %1</source>
        <translation>Läuft, Versuch %1</translation>
    </message>
    <message>
        <source>%1 since %2 (%3 so far)</source>
        <translation>%1 seit %2 (bisher %3)</translation>
    </message>
    <message>
        <source>%1 from %2 to %3 (%4)</source>
        <translation>%1 von %2 bis %3 (%4)</translation>
    </message>
    <message>
        <source>Ended: %1</source>
        <translation>Ende: %1</translation>
    </message>
    <message>
        <source>Running #%1</source>
        <translation>Lauf #%1</translation>
    </message>
    <message>
        <source>Submitted %1</source>
        <translation>Abgeschickt %1</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::SubmitPageWidget</name>
    <message>
        <source>Cancel submission</source>
        <translation>Absenden abbrechen</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>Absenden</translation>
    </message>
    <message>
        <source>Packaging the code and the dataset…</source>
        <translation>Code und Datensatz werden gepackt…</translation>
    </message>
    <message>
        <source>Uploading the code…</source>
        <translation>Code wird hochgeladen…</translation>
    </message>
    <message>
        <source>Uploading the dataset…</source>
        <translation>Datensatz wird hochgeladen…</translation>
    </message>
    <message>
        <source>Starting the job…</source>
        <translation>Job wird gestartet…</translation>
    </message>
    <message>
        <source>The job was not submitted: %1</source>
        <translation>Der Job wurde nicht abgeschickt: %1</translation>
    </message>
    <message>
        <source>Job %1 submitted. It is in your job list.</source>
        <translation>Job %1 abgeschickt. Er steht in Ihrer Jobliste.</translation>
    </message>
    <message>
        <source>Reading the dataset…</source>
        <translation>Der Datensatz wird gelesen…</translation>
    </message>
    <message>
        <source>Resumed: %1 had been sent before.</source>
        <translation>Fortgesetzt: %1 waren schon gesendet.</translation>
    </message>
    <message>
        <source>Cancelled; nothing was submitted. Go back and submit again: the upload goes on where it stopped.</source>
        <translation>Abgebrochen; es wurde nichts abgeschickt. Gehen Sie zurück und schicken Sie erneut ab: Der Upload setzt dort fort, wo er aufgehört hat.</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::SubmitWizard</name>
    <message>
        <source>Submit a job</source>
        <translation>Job absenden</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::TaskModel</name>
    <message>
        <source>%1 #%2</source>
        <translation>%1 #%2</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>Index</source>
        <translation>Index</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>Exit-Code</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>Versuch</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>Adresse</translation>
    </message>
    <message>
        <source>Ports</source>
        <translation>Ports</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>%1 (trust %2)</source>
        <translation>%1 (Vertrauen %2)</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::TrayNotifier</name>
    <message>
        <source>DDL</source>
        <translation>DDL</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::UtilisationChartsView</name>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>% of one core</source>
        <translation>% eines Kerns</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>GPU utilisation</source>
        <translation>GPU-Auslastung</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU-Speicher</translation>
    </message>
    <message>
        <source>%1 GPU %2</source>
        <translation>%1 GPU %2</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>Sekunden</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>Minuten</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>Stunden</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::WorkerModel</name>
    <message>
        <source>Online</source>
        <translation>Online</translation>
    </message>
    <message>
        <source>Lost</source>
        <translation>Verloren</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>CPUs</source>
        <translation>CPUs</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>Slots</source>
        <translation>Slots</translation>
    </message>
    <message>
        <source>Running tasks</source>
        <translation>Laufende Tasks</translation>
    </message>
    <message>
        <source>Last seen</source>
        <translation>Zuletzt gesehen</translation>
    </message>
    <message>
        <source>%1 (quarantined)</source>
        <translation>%1 (in Quarantäne)</translation>
    </message>
    <message>
        <source>%1 (unverified)</source>
        <translation>%1 (nicht geprüft)</translation>
    </message>
    <message>
        <source>Trust</source>
        <translation>Vertrauen</translation>
    </message>
</context>
<context>
    <name>ddl::desktop::WorkersView</name>
    <message>
        <source>Workers</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>This server does not list its workers (it is older than this client).</source>
        <translation>Dieser Server listet seine Worker nicht auf (er ist älter als dieser Client).</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n worker(s) online, %2 GPUs</source>
        <translation>
            <numerusform>%1 von %n Worker online, %2 GPUs</numerusform>
            <numerusform>%1 von %n Workern online, %2 GPUs</numerusform>
        </translation>
    </message>
    <message>
        <source>Select a worker to see its CPU, memory and GPU use.</source>
        <translation>Wählen Sie einen Worker, um seine CPU-, Speicher- und GPU-Nutzung zu sehen.</translation>
    </message>
    <message>
        <source>The server has no utilisation of this worker (it is older than this client, or the worker was removed).</source>
        <translation>Der Server hat keine Auslastung dieses Workers (er ist älter als dieses Programm, oder der Worker wurde entfernt).</translation>
    </message>
    <message>
        <source>No samples of %1 yet: a worker reports its CPU, memory and GPU use every few seconds while it is online.</source>
        <translation>Noch keine Messungen von %1: Ein Worker meldet seine CPU-, Speicher- und GPU-Nutzung alle paar Sekunden, solange er online ist.</translation>
    </message>
    <message>
        <source>%1 reports no GPU readings (no nvidia-smi, or GPUs declared with --gpus).</source>
        <translation>%1 meldet keine GPU-Werte (kein nvidia-smi, oder GPUs mit --gpus angegeben).</translation>
    </message>
    <message>
        <source>%1 reports no GPU.</source>
        <translation>%1 meldet keine GPU.</translation>
    </message>
</context>
</TS>
